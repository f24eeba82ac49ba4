"""The ``__init__`` of each record of the package, compiled with it (see ``_record._compiled``).

Written by ``make records``; tests/test_record.py fails when it is not what the records need.
"""
# fmt: off
# ruff: noqa
# mypy: ignore-errors

def _init_0(__record_factory__, __record_setattr__, __record_default_unlisted__):
    def __init__(self, *, accelerators, residency_regions, preferred_regions, pin_provider, pin_region, unlisted=__record_default_unlisted__):
        __record_setattr__(self, 'accelerators', accelerators)
        __record_setattr__(self, 'residency_regions', residency_regions)
        __record_setattr__(self, 'preferred_regions', preferred_regions)
        __record_setattr__(self, 'pin_provider', pin_provider)
        __record_setattr__(self, 'pin_region', pin_region)
        __record_setattr__(self, 'unlisted', unlisted)
    return __init__

def _init_1(__record_factory__, __record_setattr__):
    def __init__(self, *, evidence, low, high, basis):
        __record_setattr__(self, 'evidence', evidence)
        __record_setattr__(self, 'low', low)
        __record_setattr__(self, 'high', high)
        __record_setattr__(self, 'basis', basis)
    return __init__

def _init_2(__record_factory__, __record_setattr__):
    def __init__(self, *, header, resolved):
        __record_setattr__(self, 'header', header)
        __record_setattr__(self, 'resolved', resolved)
    return __init__

def _init_3(__record_factory__, __record_setattr__, __record_default_hysteresis_percent__, __record_default_min_hold_hours__):
    def __init__(self, *, hysteresis_percent=__record_default_hysteresis_percent__, min_hold_hours=__record_default_min_hold_hours__):
        __record_setattr__(self, 'hysteresis_percent', hysteresis_percent)
        __record_setattr__(self, 'min_hold_hours', min_hold_hours)
        self.__post_init__()
    return __init__

def _init_4(__record_factory__, __record_setattr__, __record_default_attestations__, __record_default_sla_percent__, __record_default_sla_source__):
    def __init__(self, *, id, display_name, kind, attestations=__record_default_attestations__, sla_percent=__record_default_sla_percent__, sla_source=__record_default_sla_source__):
        __record_setattr__(self, 'id', id)
        __record_setattr__(self, 'display_name', display_name)
        __record_setattr__(self, 'kind', kind)
        __record_setattr__(self, 'attestations', attestations)
        __record_setattr__(self, 'sla_percent', sla_percent)
        __record_setattr__(self, 'sla_source', sla_source)
    return __init__

def _init_5(__record_factory__, __record_setattr__, __record_default_fp8_tflops__, __record_default_fp4_tflops__, __record_default_interconnect__, __record_default_interconnect_gbps__, __record_default_aliases__, __record_default_source__, __record_default_notes__, __record_default_fp32_tflops__, __record_default_int8_tops__, __record_default_tdp_w__, __record_default_form_factor__):
    def __init__(self, *, id, vendor, architecture, memory_gb, memory_bw_gbps, bf16_tflops, fp8_tflops=__record_default_fp8_tflops__, fp4_tflops=__record_default_fp4_tflops__, interconnect=__record_default_interconnect__, interconnect_gbps=__record_default_interconnect_gbps__, aliases=__record_default_aliases__, source=__record_default_source__, notes=__record_default_notes__, fp32_tflops=__record_default_fp32_tflops__, int8_tops=__record_default_int8_tops__, tdp_w=__record_default_tdp_w__, form_factor=__record_default_form_factor__):
        __record_setattr__(self, 'id', id)
        __record_setattr__(self, 'vendor', vendor)
        __record_setattr__(self, 'architecture', architecture)
        __record_setattr__(self, 'memory_gb', memory_gb)
        __record_setattr__(self, 'memory_bw_gbps', memory_bw_gbps)
        __record_setattr__(self, 'bf16_tflops', bf16_tflops)
        __record_setattr__(self, 'fp8_tflops', fp8_tflops)
        __record_setattr__(self, 'fp4_tflops', fp4_tflops)
        __record_setattr__(self, 'interconnect', interconnect)
        __record_setattr__(self, 'interconnect_gbps', interconnect_gbps)
        __record_setattr__(self, 'aliases', aliases)
        __record_setattr__(self, 'source', source)
        __record_setattr__(self, 'notes', notes)
        __record_setattr__(self, 'fp32_tflops', fp32_tflops)
        __record_setattr__(self, 'int8_tops', int8_tops)
        __record_setattr__(self, 'tdp_w', tdp_w)
        __record_setattr__(self, 'form_factor', form_factor)
    return __init__

def _init_6(__record_factory__, __record_setattr__):
    def __init__(self, *, instance_type, region, instances):
        __record_setattr__(self, 'instance_type', instance_type)
        __record_setattr__(self, 'region', region)
        __record_setattr__(self, 'instances', instances)
    return __init__

def _init_7(__record_factory__, __record_setattr__, __record_default_reasons__, __record_default_tokens_per_s__, __record_default_ttft_ms__, __record_default_tpot_ms__, __record_default_hours__, __record_default_step_time_s__, __record_default_mfu__, __record_default_tensor_parallel__, __record_default_replicas__, __record_default_memory_gb_per_accelerator__, __record_default_concurrency_per_replica__, __record_default_group_instances__, __record_default_model_version__, __record_default_assumptions__, __record_default_band__, __record_default_evidence__, __record_default_central_instances__, __record_default_hours_p10__, __record_default_central_hours__, __record_default_deadline_needed__, __record_default_pipeline_parallel__, __record_default_micro_batches__):
    def __init__(self, *, instances, reasons=__record_default_reasons__, tokens_per_s=__record_default_tokens_per_s__, ttft_ms=__record_default_ttft_ms__, tpot_ms=__record_default_tpot_ms__, hours=__record_default_hours__, step_time_s=__record_default_step_time_s__, mfu=__record_default_mfu__, tensor_parallel=__record_default_tensor_parallel__, replicas=__record_default_replicas__, memory_gb_per_accelerator=__record_default_memory_gb_per_accelerator__, concurrency_per_replica=__record_default_concurrency_per_replica__, group_instances=__record_default_group_instances__, model_version=__record_default_model_version__, assumptions=__record_default_assumptions__, band=__record_default_band__, evidence=__record_default_evidence__, central_instances=__record_default_central_instances__, hours_p10=__record_default_hours_p10__, central_hours=__record_default_central_hours__, deadline_needed=__record_default_deadline_needed__, pipeline_parallel=__record_default_pipeline_parallel__, micro_batches=__record_default_micro_batches__):
        __record_setattr__(self, 'instances', instances)
        __record_setattr__(self, 'reasons', reasons)
        __record_setattr__(self, 'tokens_per_s', tokens_per_s)
        __record_setattr__(self, 'ttft_ms', ttft_ms)
        __record_setattr__(self, 'tpot_ms', tpot_ms)
        __record_setattr__(self, 'hours', hours)
        __record_setattr__(self, 'step_time_s', step_time_s)
        __record_setattr__(self, 'mfu', mfu)
        __record_setattr__(self, 'tensor_parallel', tensor_parallel)
        __record_setattr__(self, 'replicas', replicas)
        __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)
        __record_setattr__(self, 'concurrency_per_replica', concurrency_per_replica)
        __record_setattr__(self, 'group_instances', group_instances)
        __record_setattr__(self, 'model_version', model_version)
        __record_setattr__(self, 'assumptions', assumptions)
        __record_setattr__(self, 'band', band)
        __record_setattr__(self, 'evidence', evidence)
        __record_setattr__(self, 'central_instances', central_instances)
        __record_setattr__(self, 'hours_p10', hours_p10)
        __record_setattr__(self, 'central_hours', central_hours)
        __record_setattr__(self, 'deadline_needed', deadline_needed)
        __record_setattr__(self, 'pipeline_parallel', pipeline_parallel)
        __record_setattr__(self, 'micro_batches', micro_batches)
    return __init__

def _init_8(__record_factory__, __record_setattr__, __record_default_accounts__, __record_default_unlisted__):
    def __init__(self, *, intent, catalog, result, pin, accounts=__record_default_accounts__, unlisted=__record_default_unlisted__):
        __record_setattr__(self, 'intent', intent)
        __record_setattr__(self, 'catalog', catalog)
        __record_setattr__(self, 'result', result)
        __record_setattr__(self, 'pin', pin)
        __record_setattr__(self, 'accounts', accounts)
        __record_setattr__(self, 'unlisted', unlisted)
    return __init__

def _init_9(__record_factory__, __record_setattr__, __record_default_trade_off__, __record_default_considered__, __record_default_feasible__, __record_factory_pinned_out__, __record_default_nearest_misses__, __record_default_intent_spec__, __record_factory_pin__, __record_default_accounts__, __record_default_lock__):
    def __init__(self, *, intent_name, intent_sha256, catalog_version, catalog_as_of, catalog_sha256, chosen, alternatives, rejected, explanation, trade_off=__record_default_trade_off__, considered=__record_default_considered__, feasible=__record_default_feasible__, pinned_out=__record_factory__, nearest_misses=__record_default_nearest_misses__, intent_spec=__record_default_intent_spec__, pin=__record_factory__, accounts=__record_default_accounts__, lock=__record_default_lock__):
        __record_setattr__(self, 'intent_name', intent_name)
        __record_setattr__(self, 'intent_sha256', intent_sha256)
        __record_setattr__(self, 'catalog_version', catalog_version)
        __record_setattr__(self, 'catalog_as_of', catalog_as_of)
        __record_setattr__(self, 'catalog_sha256', catalog_sha256)
        __record_setattr__(self, 'chosen', chosen)
        __record_setattr__(self, 'alternatives', alternatives)
        __record_setattr__(self, 'rejected', rejected)
        __record_setattr__(self, 'explanation', explanation)
        __record_setattr__(self, 'trade_off', trade_off)
        __record_setattr__(self, 'considered', considered)
        __record_setattr__(self, 'feasible', feasible)
        __record_setattr__(self, 'pinned_out', __record_factory_pinned_out__() if pinned_out is __record_factory__ else pinned_out)
        __record_setattr__(self, 'nearest_misses', nearest_misses)
        __record_setattr__(self, 'intent_spec', intent_spec)
        __record_setattr__(self, 'pin', __record_factory_pin__() if pin is __record_factory__ else pin)
        __record_setattr__(self, 'accounts', accounts)
        __record_setattr__(self, 'lock', lock)
    return __init__

def _init_10(__record_factory__, __record_setattr__):
    def __init__(self, *, model, precision, accelerator, factor, source):
        __record_setattr__(self, 'model', model)
        __record_setattr__(self, 'precision', precision)
        __record_setattr__(self, 'accelerator', accelerator)
        __record_setattr__(self, 'factor', factor)
        __record_setattr__(self, 'source', source)
        self.__post_init__()
    return __init__

def _init_11(__record_factory__, __record_setattr__, __record_default_cluster__, __record_factory_tags__, __record_factory_options__, __record_default_model__, __record_default_workload_type__, __record_default_image__, __record_default_precision__):
    def __init__(self, *, name, cluster=__record_default_cluster__, tags=__record_factory__, options=__record_factory__, model=__record_default_model__, workload_type=__record_default_workload_type__, image=__record_default_image__, precision=__record_default_precision__):
        __record_setattr__(self, 'name', name)
        __record_setattr__(self, 'cluster', cluster)
        __record_setattr__(self, 'tags', __record_factory_tags__() if tags is __record_factory__ else tags)
        __record_setattr__(self, 'options', __record_factory_options__() if options is __record_factory__ else options)
        __record_setattr__(self, 'model', model)
        __record_setattr__(self, 'workload_type', workload_type)
        __record_setattr__(self, 'image', image)
        __record_setattr__(self, 'precision', precision)
        self.__post_init__()
    return __init__

def _init_12(__record_factory__, __record_setattr__, __record_default_source__, __record_default_estimated_fields__, __record_default_experts__, __record_default_experts_per_token__, __record_default_kv_cache_dim__, __record_default_aliases__, __record_default_sliding_window__, __record_default_global_layer_every__):
    def __init__(self, *, name, params_b, active_params_b, layers, hidden, heads, kv_heads, head_dim, vocab, max_context, source=__record_default_source__, estimated_fields=__record_default_estimated_fields__, experts=__record_default_experts__, experts_per_token=__record_default_experts_per_token__, kv_cache_dim=__record_default_kv_cache_dim__, aliases=__record_default_aliases__, sliding_window=__record_default_sliding_window__, global_layer_every=__record_default_global_layer_every__):
        __record_setattr__(self, 'name', name)
        __record_setattr__(self, 'params_b', params_b)
        __record_setattr__(self, 'active_params_b', active_params_b)
        __record_setattr__(self, 'layers', layers)
        __record_setattr__(self, 'hidden', hidden)
        __record_setattr__(self, 'heads', heads)
        __record_setattr__(self, 'kv_heads', kv_heads)
        __record_setattr__(self, 'head_dim', head_dim)
        __record_setattr__(self, 'vocab', vocab)
        __record_setattr__(self, 'max_context', max_context)
        __record_setattr__(self, 'source', source)
        __record_setattr__(self, 'estimated_fields', estimated_fields)
        __record_setattr__(self, 'experts', experts)
        __record_setattr__(self, 'experts_per_token', experts_per_token)
        __record_setattr__(self, 'kv_cache_dim', kv_cache_dim)
        __record_setattr__(self, 'aliases', aliases)
        __record_setattr__(self, 'sliding_window', sliding_window)
        __record_setattr__(self, 'global_layer_every', global_layer_every)
    return __init__

def _init_13(__record_factory__, __record_setattr__, __record_default_family__, __record_default_pricing__):
    def __init__(self, *, percent, family=__record_default_family__, pricing=__record_default_pricing__):
        __record_setattr__(self, 'percent', percent)
        __record_setattr__(self, 'family', family)
        __record_setattr__(self, 'pricing', pricing)
    return __init__

def _init_14(__record_factory__, __record_setattr__, __record_default_government__, __record_default_display_name__, __record_default_source__):
    def __init__(self, *, provider, code, country, continent, government=__record_default_government__, display_name=__record_default_display_name__, source=__record_default_source__):
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'code', code)
        __record_setattr__(self, 'country', country)
        __record_setattr__(self, 'continent', continent)
        __record_setattr__(self, 'government', government)
        __record_setattr__(self, 'display_name', display_name)
        __record_setattr__(self, 'source', source)
    return __init__

def _init_15(__record_factory__, __record_setattr__, __record_default_price_source__, __record_default_price_as_of__, __record_default_price_age_days__, __record_default_list_hourly_usd__, __record_default_account_terms__, __record_default_term_months__, __record_default_commitment_usd__, __record_default_whole_term_charged__):
    def __init__(self, *, provider, instance_type, accelerator, accelerators_per_instance, instances, region, country, continent, pricing, hourly_usd, monthly_usd, unit_cost, total_usd, hours, estimate, attestations, scores, score, price_source=__record_default_price_source__, price_as_of=__record_default_price_as_of__, price_age_days=__record_default_price_age_days__, list_hourly_usd=__record_default_list_hourly_usd__, account_terms=__record_default_account_terms__, term_months=__record_default_term_months__, commitment_usd=__record_default_commitment_usd__, whole_term_charged=__record_default_whole_term_charged__):
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'instance_type', instance_type)
        __record_setattr__(self, 'accelerator', accelerator)
        __record_setattr__(self, 'accelerators_per_instance', accelerators_per_instance)
        __record_setattr__(self, 'instances', instances)
        __record_setattr__(self, 'region', region)
        __record_setattr__(self, 'country', country)
        __record_setattr__(self, 'continent', continent)
        __record_setattr__(self, 'pricing', pricing)
        __record_setattr__(self, 'hourly_usd', hourly_usd)
        __record_setattr__(self, 'monthly_usd', monthly_usd)
        __record_setattr__(self, 'unit_cost', unit_cost)
        __record_setattr__(self, 'total_usd', total_usd)
        __record_setattr__(self, 'hours', hours)
        __record_setattr__(self, 'estimate', estimate)
        __record_setattr__(self, 'attestations', attestations)
        __record_setattr__(self, 'scores', scores)
        __record_setattr__(self, 'score', score)
        __record_setattr__(self, 'price_source', price_source)
        __record_setattr__(self, 'price_as_of', price_as_of)
        __record_setattr__(self, 'price_age_days', price_age_days)
        __record_setattr__(self, 'list_hourly_usd', list_hourly_usd)
        __record_setattr__(self, 'account_terms', account_terms)
        __record_setattr__(self, 'term_months', term_months)
        __record_setattr__(self, 'commitment_usd', commitment_usd)
        __record_setattr__(self, 'whole_term_charged', whole_term_charged)
    return __init__

def _init_16(__record_factory__, __record_setattr__, __record_default_capacity__, __record_default_term_months__, __record_default_upfront__):
    def __init__(self, *, provider, instance_type, region, pricing, hourly_usd, source, as_of, capacity=__record_default_capacity__, term_months=__record_default_term_months__, upfront=__record_default_upfront__):
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'instance_type', instance_type)
        __record_setattr__(self, 'region', region)
        __record_setattr__(self, 'pricing', pricing)
        __record_setattr__(self, 'hourly_usd', hourly_usd)
        __record_setattr__(self, 'source', source)
        __record_setattr__(self, 'as_of', as_of)
        __record_setattr__(self, 'capacity', capacity)
        __record_setattr__(self, 'term_months', term_months)
        __record_setattr__(self, 'upfront', upfront)
    return __init__

def _init_17(__record_factory__, __record_setattr__, __record_default_catalog_version__, __record_default_catalog_sha256__, __record_default_term_months__):
    def __init__(self, *, provider, instance_type, region, pricing, instances, hourly_usd, unit_cost, score, locked_at, catalog_version=__record_default_catalog_version__, catalog_sha256=__record_default_catalog_sha256__, term_months=__record_default_term_months__):
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'instance_type', instance_type)
        __record_setattr__(self, 'region', region)
        __record_setattr__(self, 'pricing', pricing)
        __record_setattr__(self, 'instances', instances)
        __record_setattr__(self, 'hourly_usd', hourly_usd)
        __record_setattr__(self, 'unit_cost', unit_cost)
        __record_setattr__(self, 'score', score)
        __record_setattr__(self, 'locked_at', locked_at)
        __record_setattr__(self, 'catalog_version', catalog_version)
        __record_setattr__(self, 'catalog_sha256', catalog_sha256)
        __record_setattr__(self, 'term_months', term_months)
    return __init__

def _init_18(__record_factory__, __record_setattr__):
    def __init__(self, *, provider, instance_type, region, pricing, reasons):
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'instance_type', instance_type)
        __record_setattr__(self, 'region', region)
        __record_setattr__(self, 'pricing', pricing)
        __record_setattr__(self, 'reasons', reasons)
    return __init__

def _init_19(__record_factory__, __record_setattr__, __record_default_vcpus__, __record_default_ram_gb__, __record_default_multi_node__, __record_default_interconnect__, __record_default_source__, __record_default_notes__):
    def __init__(self, *, provider, name, accelerator, accelerator_count, vcpus=__record_default_vcpus__, ram_gb=__record_default_ram_gb__, multi_node=__record_default_multi_node__, interconnect=__record_default_interconnect__, source=__record_default_source__, notes=__record_default_notes__):
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'name', name)
        __record_setattr__(self, 'accelerator', accelerator)
        __record_setattr__(self, 'accelerator_count', accelerator_count)
        __record_setattr__(self, 'vcpus', vcpus)
        __record_setattr__(self, 'ram_gb', ram_gb)
        __record_setattr__(self, 'multi_node', multi_node)
        __record_setattr__(self, 'interconnect', interconnect)
        __record_setattr__(self, 'source', source)
        __record_setattr__(self, 'notes', notes)
    return __init__

def _init_20(__record_factory__, __record_setattr__, __record_default_provider__, __record_default_region__, __record_factory_unsupported__, __record_default_targets__, __record_default_require__):
    def __init__(self, *, provider=__record_default_provider__, region=__record_default_region__, unsupported=__record_factory__, targets=__record_default_targets__, require=__record_default_require__):
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'region', region)
        __record_setattr__(self, 'unsupported', __record_factory_unsupported__() if unsupported is __record_factory__ else unsupported)
        __record_setattr__(self, 'targets', targets)
        __record_setattr__(self, 'require', require)
        self.__post_init__()
    return __init__

def _init_21(__record_factory__, __record_setattr__, __record_default_path__):
    def __init__(self, *, providers, sha256, path=__record_default_path__):
        __record_setattr__(self, 'providers', providers)
        __record_setattr__(self, 'sha256', sha256)
        __record_setattr__(self, 'path', path)
    return __init__

def _init_22(__record_factory__, __record_setattr__):
    def __init__(self, *, quotas, discounts, owned):
        __record_setattr__(self, 'quotas', quotas)
        __record_setattr__(self, 'discounts', discounts)
        __record_setattr__(self, 'owned', owned)
    return __init__

def _init_23(__record_factory__, __record_setattr__):
    def __init__(self, *, rule, message):
        __record_setattr__(self, 'rule', rule)
        __record_setattr__(self, 'message', message)
    return __init__

def _init_24(__record_factory__, __record_setattr__, __record_default_regions__, __record_default_note__, __record_default_services__):
    def __init__(self, *, scope, evidence, source, regions=__record_default_regions__, note=__record_default_note__, services=__record_default_services__):
        __record_setattr__(self, 'scope', scope)
        __record_setattr__(self, 'evidence', evidence)
        __record_setattr__(self, 'source', source)
        __record_setattr__(self, 'regions', regions)
        __record_setattr__(self, 'note', note)
        __record_setattr__(self, 'services', services)
    return __init__

def _init_25(__record_factory__, __record_setattr__, __record_default_note__, __record_default_requires__):
    def __init__(self, *, service, name, status, source, read, note=__record_default_note__, requires=__record_default_requires__):
        __record_setattr__(self, 'service', service)
        __record_setattr__(self, 'name', name)
        __record_setattr__(self, 'status', status)
        __record_setattr__(self, 'source', source)
        __record_setattr__(self, 'read', read)
        __record_setattr__(self, 'note', note)
        __record_setattr__(self, 'requires', requires)
    return __init__

def _init_26(__record_factory__, __record_setattr__, __record_default_saving_percent__, __record_default_saving_usd_per_month__, __record_default_reasons__, __record_default_held__, __record_default_summary__, __record_default_detail__):
    def __init__(self, *, status, locked, current, proposed, saving_percent=__record_default_saving_percent__, saving_usd_per_month=__record_default_saving_usd_per_month__, reasons=__record_default_reasons__, held=__record_default_held__, summary=__record_default_summary__, detail=__record_default_detail__):
        __record_setattr__(self, 'status', status)
        __record_setattr__(self, 'locked', locked)
        __record_setattr__(self, 'current', current)
        __record_setattr__(self, 'proposed', proposed)
        __record_setattr__(self, 'saving_percent', saving_percent)
        __record_setattr__(self, 'saving_usd_per_month', saving_usd_per_month)
        __record_setattr__(self, 'reasons', reasons)
        __record_setattr__(self, 'held', held)
        __record_setattr__(self, 'summary', summary)
        __record_setattr__(self, 'detail', detail)
    return __init__

def _init_27(__record_factory__, __record_setattr__, __record_default_assumptions__, __record_default_memory_needed_gb__, __record_default_memory_available_gb_per_accelerator__, __record_default_memory_usable_gb_per_accelerator__, __record_default_activation_checkpointing__, __record_default_requested_precision__, __record_default_pipeline_parallel__, __record_default_micro_batches__, __record_default_sequences_per_step__, __record_default_layout_error__, __record_default_uncertainty__):
    def __init__(self, *, tokens_per_s, tokens_per_s_per_accelerator, mfu, step_time_s, memory_gb_per_accelerator, fits, bound, tensor_parallel, replicas, precision, model_version, assumptions=__record_default_assumptions__, memory_needed_gb=__record_default_memory_needed_gb__, memory_available_gb_per_accelerator=__record_default_memory_available_gb_per_accelerator__, memory_usable_gb_per_accelerator=__record_default_memory_usable_gb_per_accelerator__, activation_checkpointing=__record_default_activation_checkpointing__, requested_precision=__record_default_requested_precision__, pipeline_parallel=__record_default_pipeline_parallel__, micro_batches=__record_default_micro_batches__, sequences_per_step=__record_default_sequences_per_step__, layout_error=__record_default_layout_error__, uncertainty=__record_default_uncertainty__):
        __record_setattr__(self, 'tokens_per_s', tokens_per_s)
        __record_setattr__(self, 'tokens_per_s_per_accelerator', tokens_per_s_per_accelerator)
        __record_setattr__(self, 'mfu', mfu)
        __record_setattr__(self, 'step_time_s', step_time_s)
        __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)
        __record_setattr__(self, 'fits', fits)
        __record_setattr__(self, 'bound', bound)
        __record_setattr__(self, 'tensor_parallel', tensor_parallel)
        __record_setattr__(self, 'replicas', replicas)
        __record_setattr__(self, 'precision', precision)
        __record_setattr__(self, 'model_version', model_version)
        __record_setattr__(self, 'assumptions', assumptions)
        __record_setattr__(self, 'memory_needed_gb', memory_needed_gb)
        __record_setattr__(self, 'memory_available_gb_per_accelerator', memory_available_gb_per_accelerator)
        __record_setattr__(self, 'memory_usable_gb_per_accelerator', memory_usable_gb_per_accelerator)
        __record_setattr__(self, 'activation_checkpointing', activation_checkpointing)
        __record_setattr__(self, 'requested_precision', requested_precision)
        __record_setattr__(self, 'pipeline_parallel', pipeline_parallel)
        __record_setattr__(self, 'micro_batches', micro_batches)
        __record_setattr__(self, 'sequences_per_step', sequences_per_step)
        __record_setattr__(self, 'layout_error', layout_error)
        __record_setattr__(self, 'uncertainty', uncertainty)
    return __init__

def _init_28(__record_factory__, __record_setattr__, __record_default_assumptions__, __record_default_slo_met__, __record_default_memory_needed_gb__, __record_default_memory_available_gb_per_accelerator__, __record_default_memory_usable_gb_per_accelerator__, __record_default_requested_precision__, __record_default_weights_gb_per_accelerator__, __record_default_uncertainty__):
    def __init__(self, *, tokens_per_s, tokens_per_s_per_accelerator, ttft_ms, tpot_ms, memory_gb_per_accelerator, fits, bound, tensor_parallel, replicas, concurrency, precision, model_version, assumptions=__record_default_assumptions__, slo_met=__record_default_slo_met__, memory_needed_gb=__record_default_memory_needed_gb__, memory_available_gb_per_accelerator=__record_default_memory_available_gb_per_accelerator__, memory_usable_gb_per_accelerator=__record_default_memory_usable_gb_per_accelerator__, requested_precision=__record_default_requested_precision__, weights_gb_per_accelerator=__record_default_weights_gb_per_accelerator__, uncertainty=__record_default_uncertainty__):
        __record_setattr__(self, 'tokens_per_s', tokens_per_s)
        __record_setattr__(self, 'tokens_per_s_per_accelerator', tokens_per_s_per_accelerator)
        __record_setattr__(self, 'ttft_ms', ttft_ms)
        __record_setattr__(self, 'tpot_ms', tpot_ms)
        __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)
        __record_setattr__(self, 'fits', fits)
        __record_setattr__(self, 'bound', bound)
        __record_setattr__(self, 'tensor_parallel', tensor_parallel)
        __record_setattr__(self, 'replicas', replicas)
        __record_setattr__(self, 'concurrency', concurrency)
        __record_setattr__(self, 'precision', precision)
        __record_setattr__(self, 'model_version', model_version)
        __record_setattr__(self, 'assumptions', assumptions)
        __record_setattr__(self, 'slo_met', slo_met)
        __record_setattr__(self, 'memory_needed_gb', memory_needed_gb)
        __record_setattr__(self, 'memory_available_gb_per_accelerator', memory_available_gb_per_accelerator)
        __record_setattr__(self, 'memory_usable_gb_per_accelerator', memory_usable_gb_per_accelerator)
        __record_setattr__(self, 'requested_precision', requested_precision)
        __record_setattr__(self, 'weights_gb_per_accelerator', weights_gb_per_accelerator)
        __record_setattr__(self, 'uncertainty', uncertainty)
    return __init__

def _init_29(__record_factory__, __record_setattr__, __record_default_assumptions__, __record_default_mfu__, __record_default_step_time_s__, __record_default_tensor_parallel__, __record_default_replicas__, __record_default_memory_gb_per_accelerator__, __record_default_concurrency_per_replica__, __record_default_tokens_per_s_p10__, __record_default_tokens_per_s_p90__, __record_default_evidence__, __record_default_hours_p10__, __record_default_central_instances__, __record_default_pipeline_parallel__, __record_default_micro_batches__):
    def __init__(self, *, tokens_per_s, ttft_ms, tpot_ms, model, assumptions=__record_default_assumptions__, mfu=__record_default_mfu__, step_time_s=__record_default_step_time_s__, tensor_parallel=__record_default_tensor_parallel__, replicas=__record_default_replicas__, memory_gb_per_accelerator=__record_default_memory_gb_per_accelerator__, concurrency_per_replica=__record_default_concurrency_per_replica__, tokens_per_s_p10=__record_default_tokens_per_s_p10__, tokens_per_s_p90=__record_default_tokens_per_s_p90__, evidence=__record_default_evidence__, hours_p10=__record_default_hours_p10__, central_instances=__record_default_central_instances__, pipeline_parallel=__record_default_pipeline_parallel__, micro_batches=__record_default_micro_batches__):
        __record_setattr__(self, 'tokens_per_s', tokens_per_s)
        __record_setattr__(self, 'ttft_ms', ttft_ms)
        __record_setattr__(self, 'tpot_ms', tpot_ms)
        __record_setattr__(self, 'model', model)
        __record_setattr__(self, 'assumptions', assumptions)
        __record_setattr__(self, 'mfu', mfu)
        __record_setattr__(self, 'step_time_s', step_time_s)
        __record_setattr__(self, 'tensor_parallel', tensor_parallel)
        __record_setattr__(self, 'replicas', replicas)
        __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)
        __record_setattr__(self, 'concurrency_per_replica', concurrency_per_replica)
        __record_setattr__(self, 'tokens_per_s_p10', tokens_per_s_p10)
        __record_setattr__(self, 'tokens_per_s_p90', tokens_per_s_p90)
        __record_setattr__(self, 'evidence', evidence)
        __record_setattr__(self, 'hours_p10', hours_p10)
        __record_setattr__(self, 'central_instances', central_instances)
        __record_setattr__(self, 'pipeline_parallel', pipeline_parallel)
        __record_setattr__(self, 'micro_batches', micro_batches)
    return __init__

def _init_30(__record_factory__, __record_setattr__):
    def __init__(self, *, unit, value):
        __record_setattr__(self, 'unit', unit)
        __record_setattr__(self, 'value', value)
    return __init__

def _init_31(__record_factory__, __record_setattr__, __record_factory__index__):
    def __init__(self, *, version, as_of, sha256, providers, regions, accelerators, instance_types, offers):
        __record_setattr__(self, 'version', version)
        __record_setattr__(self, 'as_of', as_of)
        __record_setattr__(self, 'sha256', sha256)
        __record_setattr__(self, 'providers', providers)
        __record_setattr__(self, 'regions', regions)
        __record_setattr__(self, 'accelerators', accelerators)
        __record_setattr__(self, 'instance_types', instance_types)
        __record_setattr__(self, 'offers', offers)
        __record_setattr__(self, '_index', __record_factory__index__())
    return __init__

def _init_32(__record_factory__, __record_setattr__):
    def __init__(self, batch, ttft_s, tpot_s, tokens_per_s, bound):
        self.batch = batch
        self.ttft_s = ttft_s
        self.tpot_s = tpot_s
        self.tokens_per_s = tokens_per_s
        self.bound = bound
    return __init__

def _init_33(__record_factory__, __record_setattr__):
    def __init__(self, date, accelerator, notice):
        __record_setattr__(self, 'date', date)
        __record_setattr__(self, 'accelerator', accelerator)
        __record_setattr__(self, 'notice', notice)
    return __init__

def _init_34(__record_factory__, __record_setattr__, __record_default_by_rule__, __record_default_examples__, __record_default_by_position__, __record_default__rejections__):
    def __init__(self, feasible, rejected, pinned_out, pinned_out_feasible, by_rule=__record_default_by_rule__, examples=__record_default_examples__, by_position=__record_default_by_position__, _rejections=__record_default__rejections__):
        self.feasible = feasible
        self.rejected = rejected
        self.pinned_out = pinned_out
        self.pinned_out_feasible = pinned_out_feasible
        self.by_rule = by_rule
        self.examples = examples
        self.by_position = by_position
        self._rejections = _rejections
    return __init__

def _init_35(__record_factory__, __record_setattr__):
    def __init__(self, increment_s, minimum_s, source):
        __record_setattr__(self, 'increment_s', increment_s)
        __record_setattr__(self, 'minimum_s', minimum_s)
        __record_setattr__(self, 'source', source)
    return __init__

def _init_36(__record_factory__, __record_setattr__):
    def __init__(self, key, replica, point, replicas, total, slo_met):
        __record_setattr__(self, 'key', key)
        __record_setattr__(self, 'replica', replica)
        __record_setattr__(self, 'point', point)
        __record_setattr__(self, 'replicas', replicas)
        __record_setattr__(self, 'total', total)
        __record_setattr__(self, 'slo_met', slo_met)
    return __init__

def _init_37(__record_factory__, __record_setattr__):
    def __init__(self, kv_per_req_s, cmp_per_req_s, comm_fixed_s, comm_per_req_s, overhead_s, pf_tok_s, pf_step_tok_s, prefill_s):
        self.kv_per_req_s = kv_per_req_s
        self.cmp_per_req_s = cmp_per_req_s
        self.comm_fixed_s = comm_fixed_s
        self.comm_per_req_s = comm_per_req_s
        self.overhead_s = overhead_s
        self.pf_tok_s = pf_tok_s
        self.pf_step_tok_s = pf_step_tok_s
        self.prefill_s = prefill_s
    return __init__

def _init_38(__record_factory__, __record_setattr__, __record_default_cp__):
    def __init__(self, mp, tp, ckpt, mem_gb, mfu, dp, micro, micro_batches, share, virtual, cp=__record_default_cp__):
        __record_setattr__(self, 'mp', mp)
        __record_setattr__(self, 'tp', tp)
        __record_setattr__(self, 'ckpt', ckpt)
        __record_setattr__(self, 'mem_gb', mem_gb)
        __record_setattr__(self, 'mfu', mfu)
        __record_setattr__(self, 'dp', dp)
        __record_setattr__(self, 'micro', micro)
        __record_setattr__(self, 'micro_batches', micro_batches)
        __record_setattr__(self, 'share', share)
        __record_setattr__(self, 'virtual', virtual)
        __record_setattr__(self, 'cp', cp)
    return __init__

def _init_39(__record_factory__, __record_setattr__, __record_default_max_slice_chips__, __record_default_link_eff__, __record_default_serving_eff__, __record_default_host_s_per_seq__):
    def __init__(self, name, memory_gb, bw_gbps, bf16_tflops, fp8_tflops, fp4_tflops, fp32_tflops, link, link_gbps, is_tpu, link_note, arch, max_slice_chips=__record_default_max_slice_chips__, link_eff=__record_default_link_eff__, serving_eff=__record_default_serving_eff__, host_s_per_seq=__record_default_host_s_per_seq__):
        __record_setattr__(self, 'name', name)
        __record_setattr__(self, 'memory_gb', memory_gb)
        __record_setattr__(self, 'bw_gbps', bw_gbps)
        __record_setattr__(self, 'bf16_tflops', bf16_tflops)
        __record_setattr__(self, 'fp8_tflops', fp8_tflops)
        __record_setattr__(self, 'fp4_tflops', fp4_tflops)
        __record_setattr__(self, 'fp32_tflops', fp32_tflops)
        __record_setattr__(self, 'link', link)
        __record_setattr__(self, 'link_gbps', link_gbps)
        __record_setattr__(self, 'is_tpu', is_tpu)
        __record_setattr__(self, 'link_note', link_note)
        __record_setattr__(self, 'arch', arch)
        __record_setattr__(self, 'max_slice_chips', max_slice_chips)
        __record_setattr__(self, 'link_eff', link_eff)
        __record_setattr__(self, 'serving_eff', serving_eff)
        __record_setattr__(self, 'host_s_per_seq', host_s_per_seq)
    return __init__

def _init_40(__record_factory__, __record_setattr__):
    def __init__(self, offer, provider, region, itype, accelerator):
        __record_setattr__(self, 'offer', offer)
        __record_setattr__(self, 'provider', provider)
        __record_setattr__(self, 'region', region)
        __record_setattr__(self, 'itype', itype)
        __record_setattr__(self, 'accelerator', accelerator)
    return __init__

def _init_41(__record_factory__, __record_setattr__):
    def __init__(self, rejected, fabric, fitting):
        __record_setattr__(self, 'rejected', rejected)
        __record_setattr__(self, 'fabric', fabric)
        __record_setattr__(self, 'fitting', fitting)
    return __init__

def _init_42(__record_factory__, __record_setattr__, __record_default_unit_cost__, __record_default_ranked_unit_cost__, __record_default_total__, __record_default_reasons__, __record_default_parts__, __record_default_score__, __record_default_list_hourly__, __record_default_terms__, __record_default_commitment__, __record_default_whole_term__, __record_default_services__, __record_default_position__):
    def __init__(self, row, sizing, hourly, unit_cost=__record_default_unit_cost__, ranked_unit_cost=__record_default_ranked_unit_cost__, total=__record_default_total__, reasons=__record_default_reasons__, parts=__record_default_parts__, score=__record_default_score__, list_hourly=__record_default_list_hourly__, terms=__record_default_terms__, commitment=__record_default_commitment__, whole_term=__record_default_whole_term__, services=__record_default_services__, position=__record_default_position__):
        self.row = row
        self.sizing = sizing
        self.hourly = hourly
        self.unit_cost = unit_cost
        self.ranked_unit_cost = ranked_unit_cost
        self.total = total
        self.reasons = reasons
        self.parts = parts
        self.score = score
        self.list_hourly = list_hourly
        self.terms = terms
        self.commitment = commitment
        self.whole_term = whole_term
        self.services = services
        self.position = position
    return __init__

def _init_43(__record_factory__, __record_setattr__, __record_default_targets__):
    def __init__(self, sizing, shared, services, priced, per_instance, billed, billed_p10, targets=__record_default_targets__):
        self.sizing = sizing
        self.shared = shared
        self.services = services
        self.priced = priced
        self.per_instance = per_instance
        self.billed = billed
        self.billed_p10 = billed_p10
        self.targets = targets
    return __init__

def _init_44(__record_factory__, __record_setattr__):
    def __init__(self, source, rows, by_itype, regions_per_itype):
        __record_setattr__(self, 'source', source)
        __record_setattr__(self, 'rows', rows)
        __record_setattr__(self, 'by_itype', by_itype)
        __record_setattr__(self, 'regions_per_itype', regions_per_itype)
    return __init__

def _init_45(__record_factory__, __record_setattr__, __record_factory_coeffs_memo__, __record_factory_points_memo__, __record_factory_meeting_memo__):
    def __init__(self, t, free_kv_gb, static_gb, weights_gb, kv_gb_per_token, max_batch, w_shared, w_experts, route_frac, kv_bytes_per_token, kv_div, ach_flops, bw, lat, link_bps, moe_factor, host_s, coeffs_memo=__record_factory__, points_memo=__record_factory__, meeting_memo=__record_factory__):
        self.t = t
        self.free_kv_gb = free_kv_gb
        self.static_gb = static_gb
        self.weights_gb = weights_gb
        self.kv_gb_per_token = kv_gb_per_token
        self.max_batch = max_batch
        self.w_shared = w_shared
        self.w_experts = w_experts
        self.route_frac = route_frac
        self.kv_bytes_per_token = kv_bytes_per_token
        self.kv_div = kv_div
        self.ach_flops = ach_flops
        self.bw = bw
        self.lat = lat
        self.link_bps = link_bps
        self.moe_factor = moe_factor
        self.host_s = host_s
        self.coeffs_memo = __record_factory_coeffs_memo__() if coeffs_memo is __record_factory__ else coeffs_memo
        self.points_memo = __record_factory_points_memo__() if points_memo is __record_factory__ else points_memo
        self.meeting_memo = __record_factory_meeting_memo__() if meeting_memo is __record_factory__ else meeting_memo
    return __init__

def _init_46(__record_factory__, __record_setattr__):
    def __init__(self, term_hours, prices, above):
        __record_setattr__(self, 'term_hours', term_hours)
        __record_setattr__(self, 'prices', prices)
        __record_setattr__(self, 'above', above)
    return __init__

FACTORIES: dict = {  # the source of an __init__ -> the function above that makes it
    "def __init__(self, *, accelerators, residency_regions, preferred_regions, pin_provider, pin_region, unlisted=__record_default_unlisted__):\n    __record_setattr__(self, 'accelerators', accelerators)\n    __record_setattr__(self, 'residency_regions', residency_regions)\n    __record_setattr__(self, 'preferred_regions', preferred_regions)\n    __record_setattr__(self, 'pin_provider', pin_provider)\n    __record_setattr__(self, 'pin_region', pin_region)\n    __record_setattr__(self, 'unlisted', unlisted)\n": _init_0,
    "def __init__(self, *, evidence, low, high, basis):\n    __record_setattr__(self, 'evidence', evidence)\n    __record_setattr__(self, 'low', low)\n    __record_setattr__(self, 'high', high)\n    __record_setattr__(self, 'basis', basis)\n": _init_1,
    "def __init__(self, *, header, resolved):\n    __record_setattr__(self, 'header', header)\n    __record_setattr__(self, 'resolved', resolved)\n": _init_2,
    "def __init__(self, *, hysteresis_percent=__record_default_hysteresis_percent__, min_hold_hours=__record_default_min_hold_hours__):\n    __record_setattr__(self, 'hysteresis_percent', hysteresis_percent)\n    __record_setattr__(self, 'min_hold_hours', min_hold_hours)\n    self.__post_init__()\n": _init_3,
    "def __init__(self, *, id, display_name, kind, attestations=__record_default_attestations__, sla_percent=__record_default_sla_percent__, sla_source=__record_default_sla_source__):\n    __record_setattr__(self, 'id', id)\n    __record_setattr__(self, 'display_name', display_name)\n    __record_setattr__(self, 'kind', kind)\n    __record_setattr__(self, 'attestations', attestations)\n    __record_setattr__(self, 'sla_percent', sla_percent)\n    __record_setattr__(self, 'sla_source', sla_source)\n": _init_4,
    "def __init__(self, *, id, vendor, architecture, memory_gb, memory_bw_gbps, bf16_tflops, fp8_tflops=__record_default_fp8_tflops__, fp4_tflops=__record_default_fp4_tflops__, interconnect=__record_default_interconnect__, interconnect_gbps=__record_default_interconnect_gbps__, aliases=__record_default_aliases__, source=__record_default_source__, notes=__record_default_notes__, fp32_tflops=__record_default_fp32_tflops__, int8_tops=__record_default_int8_tops__, tdp_w=__record_default_tdp_w__, form_factor=__record_default_form_factor__):\n    __record_setattr__(self, 'id', id)\n    __record_setattr__(self, 'vendor', vendor)\n    __record_setattr__(self, 'architecture', architecture)\n    __record_setattr__(self, 'memory_gb', memory_gb)\n    __record_setattr__(self, 'memory_bw_gbps', memory_bw_gbps)\n    __record_setattr__(self, 'bf16_tflops', bf16_tflops)\n    __record_setattr__(self, 'fp8_tflops', fp8_tflops)\n    __record_setattr__(self, 'fp4_tflops', fp4_tflops)\n    __record_setattr__(self, 'interconnect', interconnect)\n    __record_setattr__(self, 'interconnect_gbps', interconnect_gbps)\n    __record_setattr__(self, 'aliases', aliases)\n    __record_setattr__(self, 'source', source)\n    __record_setattr__(self, 'notes', notes)\n    __record_setattr__(self, 'fp32_tflops', fp32_tflops)\n    __record_setattr__(self, 'int8_tops', int8_tops)\n    __record_setattr__(self, 'tdp_w', tdp_w)\n    __record_setattr__(self, 'form_factor', form_factor)\n": _init_5,
    "def __init__(self, *, instance_type, region, instances):\n    __record_setattr__(self, 'instance_type', instance_type)\n    __record_setattr__(self, 'region', region)\n    __record_setattr__(self, 'instances', instances)\n": _init_6,
    "def __init__(self, *, instances, reasons=__record_default_reasons__, tokens_per_s=__record_default_tokens_per_s__, ttft_ms=__record_default_ttft_ms__, tpot_ms=__record_default_tpot_ms__, hours=__record_default_hours__, step_time_s=__record_default_step_time_s__, mfu=__record_default_mfu__, tensor_parallel=__record_default_tensor_parallel__, replicas=__record_default_replicas__, memory_gb_per_accelerator=__record_default_memory_gb_per_accelerator__, concurrency_per_replica=__record_default_concurrency_per_replica__, group_instances=__record_default_group_instances__, model_version=__record_default_model_version__, assumptions=__record_default_assumptions__, band=__record_default_band__, evidence=__record_default_evidence__, central_instances=__record_default_central_instances__, hours_p10=__record_default_hours_p10__, central_hours=__record_default_central_hours__, deadline_needed=__record_default_deadline_needed__, pipeline_parallel=__record_default_pipeline_parallel__, micro_batches=__record_default_micro_batches__):\n    __record_setattr__(self, 'instances', instances)\n    __record_setattr__(self, 'reasons', reasons)\n    __record_setattr__(self, 'tokens_per_s', tokens_per_s)\n    __record_setattr__(self, 'ttft_ms', ttft_ms)\n    __record_setattr__(self, 'tpot_ms', tpot_ms)\n    __record_setattr__(self, 'hours', hours)\n    __record_setattr__(self, 'step_time_s', step_time_s)\n    __record_setattr__(self, 'mfu', mfu)\n    __record_setattr__(self, 'tensor_parallel', tensor_parallel)\n    __record_setattr__(self, 'replicas', replicas)\n    __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)\n    __record_setattr__(self, 'concurrency_per_replica', concurrency_per_replica)\n    __record_setattr__(self, 'group_instances', group_instances)\n    __record_setattr__(self, 'model_version', model_version)\n    __record_setattr__(self, 'assumptions', assumptions)\n    __record_setattr__(self, 'band', band)\n    __record_setattr__(self, 'evidence', evidence)\n    __record_setattr__(self, 'central_instances', central_instances)\n    __record_setattr__(self, 'hours_p10', hours_p10)\n    __record_setattr__(self, 'central_hours', central_hours)\n    __record_setattr__(self, 'deadline_needed', deadline_needed)\n    __record_setattr__(self, 'pipeline_parallel', pipeline_parallel)\n    __record_setattr__(self, 'micro_batches', micro_batches)\n": _init_7,
    "def __init__(self, *, intent, catalog, result, pin, accounts=__record_default_accounts__, unlisted=__record_default_unlisted__):\n    __record_setattr__(self, 'intent', intent)\n    __record_setattr__(self, 'catalog', catalog)\n    __record_setattr__(self, 'result', result)\n    __record_setattr__(self, 'pin', pin)\n    __record_setattr__(self, 'accounts', accounts)\n    __record_setattr__(self, 'unlisted', unlisted)\n": _init_8,
    "def __init__(self, *, intent_name, intent_sha256, catalog_version, catalog_as_of, catalog_sha256, chosen, alternatives, rejected, explanation, trade_off=__record_default_trade_off__, considered=__record_default_considered__, feasible=__record_default_feasible__, pinned_out=__record_factory__, nearest_misses=__record_default_nearest_misses__, intent_spec=__record_default_intent_spec__, pin=__record_factory__, accounts=__record_default_accounts__, lock=__record_default_lock__):\n    __record_setattr__(self, 'intent_name', intent_name)\n    __record_setattr__(self, 'intent_sha256', intent_sha256)\n    __record_setattr__(self, 'catalog_version', catalog_version)\n    __record_setattr__(self, 'catalog_as_of', catalog_as_of)\n    __record_setattr__(self, 'catalog_sha256', catalog_sha256)\n    __record_setattr__(self, 'chosen', chosen)\n    __record_setattr__(self, 'alternatives', alternatives)\n    __record_setattr__(self, 'rejected', rejected)\n    __record_setattr__(self, 'explanation', explanation)\n    __record_setattr__(self, 'trade_off', trade_off)\n    __record_setattr__(self, 'considered', considered)\n    __record_setattr__(self, 'feasible', feasible)\n    __record_setattr__(self, 'pinned_out', __record_factory_pinned_out__() if pinned_out is __record_factory__ else pinned_out)\n    __record_setattr__(self, 'nearest_misses', nearest_misses)\n    __record_setattr__(self, 'intent_spec', intent_spec)\n    __record_setattr__(self, 'pin', __record_factory_pin__() if pin is __record_factory__ else pin)\n    __record_setattr__(self, 'accounts', accounts)\n    __record_setattr__(self, 'lock', lock)\n": _init_9,
    "def __init__(self, *, model, precision, accelerator, factor, source):\n    __record_setattr__(self, 'model', model)\n    __record_setattr__(self, 'precision', precision)\n    __record_setattr__(self, 'accelerator', accelerator)\n    __record_setattr__(self, 'factor', factor)\n    __record_setattr__(self, 'source', source)\n    self.__post_init__()\n": _init_10,
    "def __init__(self, *, name, cluster=__record_default_cluster__, tags=__record_factory__, options=__record_factory__, model=__record_default_model__, workload_type=__record_default_workload_type__, image=__record_default_image__, precision=__record_default_precision__):\n    __record_setattr__(self, 'name', name)\n    __record_setattr__(self, 'cluster', cluster)\n    __record_setattr__(self, 'tags', __record_factory_tags__() if tags is __record_factory__ else tags)\n    __record_setattr__(self, 'options', __record_factory_options__() if options is __record_factory__ else options)\n    __record_setattr__(self, 'model', model)\n    __record_setattr__(self, 'workload_type', workload_type)\n    __record_setattr__(self, 'image', image)\n    __record_setattr__(self, 'precision', precision)\n    self.__post_init__()\n": _init_11,
    "def __init__(self, *, name, params_b, active_params_b, layers, hidden, heads, kv_heads, head_dim, vocab, max_context, source=__record_default_source__, estimated_fields=__record_default_estimated_fields__, experts=__record_default_experts__, experts_per_token=__record_default_experts_per_token__, kv_cache_dim=__record_default_kv_cache_dim__, aliases=__record_default_aliases__, sliding_window=__record_default_sliding_window__, global_layer_every=__record_default_global_layer_every__):\n    __record_setattr__(self, 'name', name)\n    __record_setattr__(self, 'params_b', params_b)\n    __record_setattr__(self, 'active_params_b', active_params_b)\n    __record_setattr__(self, 'layers', layers)\n    __record_setattr__(self, 'hidden', hidden)\n    __record_setattr__(self, 'heads', heads)\n    __record_setattr__(self, 'kv_heads', kv_heads)\n    __record_setattr__(self, 'head_dim', head_dim)\n    __record_setattr__(self, 'vocab', vocab)\n    __record_setattr__(self, 'max_context', max_context)\n    __record_setattr__(self, 'source', source)\n    __record_setattr__(self, 'estimated_fields', estimated_fields)\n    __record_setattr__(self, 'experts', experts)\n    __record_setattr__(self, 'experts_per_token', experts_per_token)\n    __record_setattr__(self, 'kv_cache_dim', kv_cache_dim)\n    __record_setattr__(self, 'aliases', aliases)\n    __record_setattr__(self, 'sliding_window', sliding_window)\n    __record_setattr__(self, 'global_layer_every', global_layer_every)\n": _init_12,
    "def __init__(self, *, percent, family=__record_default_family__, pricing=__record_default_pricing__):\n    __record_setattr__(self, 'percent', percent)\n    __record_setattr__(self, 'family', family)\n    __record_setattr__(self, 'pricing', pricing)\n": _init_13,
    "def __init__(self, *, provider, code, country, continent, government=__record_default_government__, display_name=__record_default_display_name__, source=__record_default_source__):\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'code', code)\n    __record_setattr__(self, 'country', country)\n    __record_setattr__(self, 'continent', continent)\n    __record_setattr__(self, 'government', government)\n    __record_setattr__(self, 'display_name', display_name)\n    __record_setattr__(self, 'source', source)\n": _init_14,
    "def __init__(self, *, provider, instance_type, accelerator, accelerators_per_instance, instances, region, country, continent, pricing, hourly_usd, monthly_usd, unit_cost, total_usd, hours, estimate, attestations, scores, score, price_source=__record_default_price_source__, price_as_of=__record_default_price_as_of__, price_age_days=__record_default_price_age_days__, list_hourly_usd=__record_default_list_hourly_usd__, account_terms=__record_default_account_terms__, term_months=__record_default_term_months__, commitment_usd=__record_default_commitment_usd__, whole_term_charged=__record_default_whole_term_charged__):\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'instance_type', instance_type)\n    __record_setattr__(self, 'accelerator', accelerator)\n    __record_setattr__(self, 'accelerators_per_instance', accelerators_per_instance)\n    __record_setattr__(self, 'instances', instances)\n    __record_setattr__(self, 'region', region)\n    __record_setattr__(self, 'country', country)\n    __record_setattr__(self, 'continent', continent)\n    __record_setattr__(self, 'pricing', pricing)\n    __record_setattr__(self, 'hourly_usd', hourly_usd)\n    __record_setattr__(self, 'monthly_usd', monthly_usd)\n    __record_setattr__(self, 'unit_cost', unit_cost)\n    __record_setattr__(self, 'total_usd', total_usd)\n    __record_setattr__(self, 'hours', hours)\n    __record_setattr__(self, 'estimate', estimate)\n    __record_setattr__(self, 'attestations', attestations)\n    __record_setattr__(self, 'scores', scores)\n    __record_setattr__(self, 'score', score)\n    __record_setattr__(self, 'price_source', price_source)\n    __record_setattr__(self, 'price_as_of', price_as_of)\n    __record_setattr__(self, 'price_age_days', price_age_days)\n    __record_setattr__(self, 'list_hourly_usd', list_hourly_usd)\n    __record_setattr__(self, 'account_terms', account_terms)\n    __record_setattr__(self, 'term_months', term_months)\n    __record_setattr__(self, 'commitment_usd', commitment_usd)\n    __record_setattr__(self, 'whole_term_charged', whole_term_charged)\n": _init_15,
    "def __init__(self, *, provider, instance_type, region, pricing, hourly_usd, source, as_of, capacity=__record_default_capacity__, term_months=__record_default_term_months__, upfront=__record_default_upfront__):\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'instance_type', instance_type)\n    __record_setattr__(self, 'region', region)\n    __record_setattr__(self, 'pricing', pricing)\n    __record_setattr__(self, 'hourly_usd', hourly_usd)\n    __record_setattr__(self, 'source', source)\n    __record_setattr__(self, 'as_of', as_of)\n    __record_setattr__(self, 'capacity', capacity)\n    __record_setattr__(self, 'term_months', term_months)\n    __record_setattr__(self, 'upfront', upfront)\n": _init_16,
    "def __init__(self, *, provider, instance_type, region, pricing, instances, hourly_usd, unit_cost, score, locked_at, catalog_version=__record_default_catalog_version__, catalog_sha256=__record_default_catalog_sha256__, term_months=__record_default_term_months__):\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'instance_type', instance_type)\n    __record_setattr__(self, 'region', region)\n    __record_setattr__(self, 'pricing', pricing)\n    __record_setattr__(self, 'instances', instances)\n    __record_setattr__(self, 'hourly_usd', hourly_usd)\n    __record_setattr__(self, 'unit_cost', unit_cost)\n    __record_setattr__(self, 'score', score)\n    __record_setattr__(self, 'locked_at', locked_at)\n    __record_setattr__(self, 'catalog_version', catalog_version)\n    __record_setattr__(self, 'catalog_sha256', catalog_sha256)\n    __record_setattr__(self, 'term_months', term_months)\n": _init_17,
    "def __init__(self, *, provider, instance_type, region, pricing, reasons):\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'instance_type', instance_type)\n    __record_setattr__(self, 'region', region)\n    __record_setattr__(self, 'pricing', pricing)\n    __record_setattr__(self, 'reasons', reasons)\n": _init_18,
    "def __init__(self, *, provider, name, accelerator, accelerator_count, vcpus=__record_default_vcpus__, ram_gb=__record_default_ram_gb__, multi_node=__record_default_multi_node__, interconnect=__record_default_interconnect__, source=__record_default_source__, notes=__record_default_notes__):\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'name', name)\n    __record_setattr__(self, 'accelerator', accelerator)\n    __record_setattr__(self, 'accelerator_count', accelerator_count)\n    __record_setattr__(self, 'vcpus', vcpus)\n    __record_setattr__(self, 'ram_gb', ram_gb)\n    __record_setattr__(self, 'multi_node', multi_node)\n    __record_setattr__(self, 'interconnect', interconnect)\n    __record_setattr__(self, 'source', source)\n    __record_setattr__(self, 'notes', notes)\n": _init_19,
    "def __init__(self, *, provider=__record_default_provider__, region=__record_default_region__, unsupported=__record_factory__, targets=__record_default_targets__, require=__record_default_require__):\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'region', region)\n    __record_setattr__(self, 'unsupported', __record_factory_unsupported__() if unsupported is __record_factory__ else unsupported)\n    __record_setattr__(self, 'targets', targets)\n    __record_setattr__(self, 'require', require)\n    self.__post_init__()\n": _init_20,
    "def __init__(self, *, providers, sha256, path=__record_default_path__):\n    __record_setattr__(self, 'providers', providers)\n    __record_setattr__(self, 'sha256', sha256)\n    __record_setattr__(self, 'path', path)\n": _init_21,
    "def __init__(self, *, quotas, discounts, owned):\n    __record_setattr__(self, 'quotas', quotas)\n    __record_setattr__(self, 'discounts', discounts)\n    __record_setattr__(self, 'owned', owned)\n": _init_22,
    "def __init__(self, *, rule, message):\n    __record_setattr__(self, 'rule', rule)\n    __record_setattr__(self, 'message', message)\n": _init_23,
    "def __init__(self, *, scope, evidence, source, regions=__record_default_regions__, note=__record_default_note__, services=__record_default_services__):\n    __record_setattr__(self, 'scope', scope)\n    __record_setattr__(self, 'evidence', evidence)\n    __record_setattr__(self, 'source', source)\n    __record_setattr__(self, 'regions', regions)\n    __record_setattr__(self, 'note', note)\n    __record_setattr__(self, 'services', services)\n": _init_24,
    "def __init__(self, *, service, name, status, source, read, note=__record_default_note__, requires=__record_default_requires__):\n    __record_setattr__(self, 'service', service)\n    __record_setattr__(self, 'name', name)\n    __record_setattr__(self, 'status', status)\n    __record_setattr__(self, 'source', source)\n    __record_setattr__(self, 'read', read)\n    __record_setattr__(self, 'note', note)\n    __record_setattr__(self, 'requires', requires)\n": _init_25,
    "def __init__(self, *, status, locked, current, proposed, saving_percent=__record_default_saving_percent__, saving_usd_per_month=__record_default_saving_usd_per_month__, reasons=__record_default_reasons__, held=__record_default_held__, summary=__record_default_summary__, detail=__record_default_detail__):\n    __record_setattr__(self, 'status', status)\n    __record_setattr__(self, 'locked', locked)\n    __record_setattr__(self, 'current', current)\n    __record_setattr__(self, 'proposed', proposed)\n    __record_setattr__(self, 'saving_percent', saving_percent)\n    __record_setattr__(self, 'saving_usd_per_month', saving_usd_per_month)\n    __record_setattr__(self, 'reasons', reasons)\n    __record_setattr__(self, 'held', held)\n    __record_setattr__(self, 'summary', summary)\n    __record_setattr__(self, 'detail', detail)\n": _init_26,
    "def __init__(self, *, tokens_per_s, tokens_per_s_per_accelerator, mfu, step_time_s, memory_gb_per_accelerator, fits, bound, tensor_parallel, replicas, precision, model_version, assumptions=__record_default_assumptions__, memory_needed_gb=__record_default_memory_needed_gb__, memory_available_gb_per_accelerator=__record_default_memory_available_gb_per_accelerator__, memory_usable_gb_per_accelerator=__record_default_memory_usable_gb_per_accelerator__, activation_checkpointing=__record_default_activation_checkpointing__, requested_precision=__record_default_requested_precision__, pipeline_parallel=__record_default_pipeline_parallel__, micro_batches=__record_default_micro_batches__, sequences_per_step=__record_default_sequences_per_step__, layout_error=__record_default_layout_error__, uncertainty=__record_default_uncertainty__):\n    __record_setattr__(self, 'tokens_per_s', tokens_per_s)\n    __record_setattr__(self, 'tokens_per_s_per_accelerator', tokens_per_s_per_accelerator)\n    __record_setattr__(self, 'mfu', mfu)\n    __record_setattr__(self, 'step_time_s', step_time_s)\n    __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)\n    __record_setattr__(self, 'fits', fits)\n    __record_setattr__(self, 'bound', bound)\n    __record_setattr__(self, 'tensor_parallel', tensor_parallel)\n    __record_setattr__(self, 'replicas', replicas)\n    __record_setattr__(self, 'precision', precision)\n    __record_setattr__(self, 'model_version', model_version)\n    __record_setattr__(self, 'assumptions', assumptions)\n    __record_setattr__(self, 'memory_needed_gb', memory_needed_gb)\n    __record_setattr__(self, 'memory_available_gb_per_accelerator', memory_available_gb_per_accelerator)\n    __record_setattr__(self, 'memory_usable_gb_per_accelerator', memory_usable_gb_per_accelerator)\n    __record_setattr__(self, 'activation_checkpointing', activation_checkpointing)\n    __record_setattr__(self, 'requested_precision', requested_precision)\n    __record_setattr__(self, 'pipeline_parallel', pipeline_parallel)\n    __record_setattr__(self, 'micro_batches', micro_batches)\n    __record_setattr__(self, 'sequences_per_step', sequences_per_step)\n    __record_setattr__(self, 'layout_error', layout_error)\n    __record_setattr__(self, 'uncertainty', uncertainty)\n": _init_27,
    "def __init__(self, *, tokens_per_s, tokens_per_s_per_accelerator, ttft_ms, tpot_ms, memory_gb_per_accelerator, fits, bound, tensor_parallel, replicas, concurrency, precision, model_version, assumptions=__record_default_assumptions__, slo_met=__record_default_slo_met__, memory_needed_gb=__record_default_memory_needed_gb__, memory_available_gb_per_accelerator=__record_default_memory_available_gb_per_accelerator__, memory_usable_gb_per_accelerator=__record_default_memory_usable_gb_per_accelerator__, requested_precision=__record_default_requested_precision__, weights_gb_per_accelerator=__record_default_weights_gb_per_accelerator__, uncertainty=__record_default_uncertainty__):\n    __record_setattr__(self, 'tokens_per_s', tokens_per_s)\n    __record_setattr__(self, 'tokens_per_s_per_accelerator', tokens_per_s_per_accelerator)\n    __record_setattr__(self, 'ttft_ms', ttft_ms)\n    __record_setattr__(self, 'tpot_ms', tpot_ms)\n    __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)\n    __record_setattr__(self, 'fits', fits)\n    __record_setattr__(self, 'bound', bound)\n    __record_setattr__(self, 'tensor_parallel', tensor_parallel)\n    __record_setattr__(self, 'replicas', replicas)\n    __record_setattr__(self, 'concurrency', concurrency)\n    __record_setattr__(self, 'precision', precision)\n    __record_setattr__(self, 'model_version', model_version)\n    __record_setattr__(self, 'assumptions', assumptions)\n    __record_setattr__(self, 'slo_met', slo_met)\n    __record_setattr__(self, 'memory_needed_gb', memory_needed_gb)\n    __record_setattr__(self, 'memory_available_gb_per_accelerator', memory_available_gb_per_accelerator)\n    __record_setattr__(self, 'memory_usable_gb_per_accelerator', memory_usable_gb_per_accelerator)\n    __record_setattr__(self, 'requested_precision', requested_precision)\n    __record_setattr__(self, 'weights_gb_per_accelerator', weights_gb_per_accelerator)\n    __record_setattr__(self, 'uncertainty', uncertainty)\n": _init_28,
    "def __init__(self, *, tokens_per_s, ttft_ms, tpot_ms, model, assumptions=__record_default_assumptions__, mfu=__record_default_mfu__, step_time_s=__record_default_step_time_s__, tensor_parallel=__record_default_tensor_parallel__, replicas=__record_default_replicas__, memory_gb_per_accelerator=__record_default_memory_gb_per_accelerator__, concurrency_per_replica=__record_default_concurrency_per_replica__, tokens_per_s_p10=__record_default_tokens_per_s_p10__, tokens_per_s_p90=__record_default_tokens_per_s_p90__, evidence=__record_default_evidence__, hours_p10=__record_default_hours_p10__, central_instances=__record_default_central_instances__, pipeline_parallel=__record_default_pipeline_parallel__, micro_batches=__record_default_micro_batches__):\n    __record_setattr__(self, 'tokens_per_s', tokens_per_s)\n    __record_setattr__(self, 'ttft_ms', ttft_ms)\n    __record_setattr__(self, 'tpot_ms', tpot_ms)\n    __record_setattr__(self, 'model', model)\n    __record_setattr__(self, 'assumptions', assumptions)\n    __record_setattr__(self, 'mfu', mfu)\n    __record_setattr__(self, 'step_time_s', step_time_s)\n    __record_setattr__(self, 'tensor_parallel', tensor_parallel)\n    __record_setattr__(self, 'replicas', replicas)\n    __record_setattr__(self, 'memory_gb_per_accelerator', memory_gb_per_accelerator)\n    __record_setattr__(self, 'concurrency_per_replica', concurrency_per_replica)\n    __record_setattr__(self, 'tokens_per_s_p10', tokens_per_s_p10)\n    __record_setattr__(self, 'tokens_per_s_p90', tokens_per_s_p90)\n    __record_setattr__(self, 'evidence', evidence)\n    __record_setattr__(self, 'hours_p10', hours_p10)\n    __record_setattr__(self, 'central_instances', central_instances)\n    __record_setattr__(self, 'pipeline_parallel', pipeline_parallel)\n    __record_setattr__(self, 'micro_batches', micro_batches)\n": _init_29,
    "def __init__(self, *, unit, value):\n    __record_setattr__(self, 'unit', unit)\n    __record_setattr__(self, 'value', value)\n": _init_30,
    "def __init__(self, *, version, as_of, sha256, providers, regions, accelerators, instance_types, offers):\n    __record_setattr__(self, 'version', version)\n    __record_setattr__(self, 'as_of', as_of)\n    __record_setattr__(self, 'sha256', sha256)\n    __record_setattr__(self, 'providers', providers)\n    __record_setattr__(self, 'regions', regions)\n    __record_setattr__(self, 'accelerators', accelerators)\n    __record_setattr__(self, 'instance_types', instance_types)\n    __record_setattr__(self, 'offers', offers)\n    __record_setattr__(self, '_index', __record_factory__index__())\n": _init_31,
    'def __init__(self, batch, ttft_s, tpot_s, tokens_per_s, bound):\n    self.batch = batch\n    self.ttft_s = ttft_s\n    self.tpot_s = tpot_s\n    self.tokens_per_s = tokens_per_s\n    self.bound = bound\n': _init_32,
    "def __init__(self, date, accelerator, notice):\n    __record_setattr__(self, 'date', date)\n    __record_setattr__(self, 'accelerator', accelerator)\n    __record_setattr__(self, 'notice', notice)\n": _init_33,
    'def __init__(self, feasible, rejected, pinned_out, pinned_out_feasible, by_rule=__record_default_by_rule__, examples=__record_default_examples__, by_position=__record_default_by_position__, _rejections=__record_default__rejections__):\n    self.feasible = feasible\n    self.rejected = rejected\n    self.pinned_out = pinned_out\n    self.pinned_out_feasible = pinned_out_feasible\n    self.by_rule = by_rule\n    self.examples = examples\n    self.by_position = by_position\n    self._rejections = _rejections\n': _init_34,
    "def __init__(self, increment_s, minimum_s, source):\n    __record_setattr__(self, 'increment_s', increment_s)\n    __record_setattr__(self, 'minimum_s', minimum_s)\n    __record_setattr__(self, 'source', source)\n": _init_35,
    "def __init__(self, key, replica, point, replicas, total, slo_met):\n    __record_setattr__(self, 'key', key)\n    __record_setattr__(self, 'replica', replica)\n    __record_setattr__(self, 'point', point)\n    __record_setattr__(self, 'replicas', replicas)\n    __record_setattr__(self, 'total', total)\n    __record_setattr__(self, 'slo_met', slo_met)\n": _init_36,
    'def __init__(self, kv_per_req_s, cmp_per_req_s, comm_fixed_s, comm_per_req_s, overhead_s, pf_tok_s, pf_step_tok_s, prefill_s):\n    self.kv_per_req_s = kv_per_req_s\n    self.cmp_per_req_s = cmp_per_req_s\n    self.comm_fixed_s = comm_fixed_s\n    self.comm_per_req_s = comm_per_req_s\n    self.overhead_s = overhead_s\n    self.pf_tok_s = pf_tok_s\n    self.pf_step_tok_s = pf_step_tok_s\n    self.prefill_s = prefill_s\n': _init_37,
    "def __init__(self, mp, tp, ckpt, mem_gb, mfu, dp, micro, micro_batches, share, virtual, cp=__record_default_cp__):\n    __record_setattr__(self, 'mp', mp)\n    __record_setattr__(self, 'tp', tp)\n    __record_setattr__(self, 'ckpt', ckpt)\n    __record_setattr__(self, 'mem_gb', mem_gb)\n    __record_setattr__(self, 'mfu', mfu)\n    __record_setattr__(self, 'dp', dp)\n    __record_setattr__(self, 'micro', micro)\n    __record_setattr__(self, 'micro_batches', micro_batches)\n    __record_setattr__(self, 'share', share)\n    __record_setattr__(self, 'virtual', virtual)\n    __record_setattr__(self, 'cp', cp)\n": _init_38,
    "def __init__(self, name, memory_gb, bw_gbps, bf16_tflops, fp8_tflops, fp4_tflops, fp32_tflops, link, link_gbps, is_tpu, link_note, arch, max_slice_chips=__record_default_max_slice_chips__, link_eff=__record_default_link_eff__, serving_eff=__record_default_serving_eff__, host_s_per_seq=__record_default_host_s_per_seq__):\n    __record_setattr__(self, 'name', name)\n    __record_setattr__(self, 'memory_gb', memory_gb)\n    __record_setattr__(self, 'bw_gbps', bw_gbps)\n    __record_setattr__(self, 'bf16_tflops', bf16_tflops)\n    __record_setattr__(self, 'fp8_tflops', fp8_tflops)\n    __record_setattr__(self, 'fp4_tflops', fp4_tflops)\n    __record_setattr__(self, 'fp32_tflops', fp32_tflops)\n    __record_setattr__(self, 'link', link)\n    __record_setattr__(self, 'link_gbps', link_gbps)\n    __record_setattr__(self, 'is_tpu', is_tpu)\n    __record_setattr__(self, 'link_note', link_note)\n    __record_setattr__(self, 'arch', arch)\n    __record_setattr__(self, 'max_slice_chips', max_slice_chips)\n    __record_setattr__(self, 'link_eff', link_eff)\n    __record_setattr__(self, 'serving_eff', serving_eff)\n    __record_setattr__(self, 'host_s_per_seq', host_s_per_seq)\n": _init_39,
    "def __init__(self, offer, provider, region, itype, accelerator):\n    __record_setattr__(self, 'offer', offer)\n    __record_setattr__(self, 'provider', provider)\n    __record_setattr__(self, 'region', region)\n    __record_setattr__(self, 'itype', itype)\n    __record_setattr__(self, 'accelerator', accelerator)\n": _init_40,
    "def __init__(self, rejected, fabric, fitting):\n    __record_setattr__(self, 'rejected', rejected)\n    __record_setattr__(self, 'fabric', fabric)\n    __record_setattr__(self, 'fitting', fitting)\n": _init_41,
    'def __init__(self, row, sizing, hourly, unit_cost=__record_default_unit_cost__, ranked_unit_cost=__record_default_ranked_unit_cost__, total=__record_default_total__, reasons=__record_default_reasons__, parts=__record_default_parts__, score=__record_default_score__, list_hourly=__record_default_list_hourly__, terms=__record_default_terms__, commitment=__record_default_commitment__, whole_term=__record_default_whole_term__, services=__record_default_services__, position=__record_default_position__):\n    self.row = row\n    self.sizing = sizing\n    self.hourly = hourly\n    self.unit_cost = unit_cost\n    self.ranked_unit_cost = ranked_unit_cost\n    self.total = total\n    self.reasons = reasons\n    self.parts = parts\n    self.score = score\n    self.list_hourly = list_hourly\n    self.terms = terms\n    self.commitment = commitment\n    self.whole_term = whole_term\n    self.services = services\n    self.position = position\n': _init_42,
    'def __init__(self, sizing, shared, services, priced, per_instance, billed, billed_p10, targets=__record_default_targets__):\n    self.sizing = sizing\n    self.shared = shared\n    self.services = services\n    self.priced = priced\n    self.per_instance = per_instance\n    self.billed = billed\n    self.billed_p10 = billed_p10\n    self.targets = targets\n': _init_43,
    "def __init__(self, source, rows, by_itype, regions_per_itype):\n    __record_setattr__(self, 'source', source)\n    __record_setattr__(self, 'rows', rows)\n    __record_setattr__(self, 'by_itype', by_itype)\n    __record_setattr__(self, 'regions_per_itype', regions_per_itype)\n": _init_44,
    'def __init__(self, t, free_kv_gb, static_gb, weights_gb, kv_gb_per_token, max_batch, w_shared, w_experts, route_frac, kv_bytes_per_token, kv_div, ach_flops, bw, lat, link_bps, moe_factor, host_s, coeffs_memo=__record_factory__, points_memo=__record_factory__, meeting_memo=__record_factory__):\n    self.t = t\n    self.free_kv_gb = free_kv_gb\n    self.static_gb = static_gb\n    self.weights_gb = weights_gb\n    self.kv_gb_per_token = kv_gb_per_token\n    self.max_batch = max_batch\n    self.w_shared = w_shared\n    self.w_experts = w_experts\n    self.route_frac = route_frac\n    self.kv_bytes_per_token = kv_bytes_per_token\n    self.kv_div = kv_div\n    self.ach_flops = ach_flops\n    self.bw = bw\n    self.lat = lat\n    self.link_bps = link_bps\n    self.moe_factor = moe_factor\n    self.host_s = host_s\n    self.coeffs_memo = __record_factory_coeffs_memo__() if coeffs_memo is __record_factory__ else coeffs_memo\n    self.points_memo = __record_factory_points_memo__() if points_memo is __record_factory__ else points_memo\n    self.meeting_memo = __record_factory_meeting_memo__() if meeting_memo is __record_factory__ else meeting_memo\n': _init_45,
    "def __init__(self, term_hours, prices, above):\n    __record_setattr__(self, 'term_hours', term_hours)\n    __record_setattr__(self, 'prices', prices)\n    __record_setattr__(self, 'above', above)\n": _init_46,
}
