# A child module that declares only computeops: it initialises, validates and plans on a machine
# that can reach no registry (tests/terraform runs it), and the root module adds the cloud provider.

terraform {
  required_version = ">= 1.8" # provider functions; OpenTofu >= 1.7
  required_providers {
    computeops = {
      source  = "terraform.local/computeops/computeops"
      version = ">= 0.1.0"
    }
  }
}

variable "intent" {
  description = "The workload intent, YAML or JSON text (file(\"intent.yaml\") or jsonencode({...}))."
  type        = string
}

variable "pin_provider" {
  description = "Pin the provider (e.g. \"aws\" when the root module creates aws_instance); null lets the engine choose."
  type        = string
  default     = null
}

variable "auto_relock" {
  description = "Plan the move when the market drifts beyond the hysteresis (default: only warn)."
  type        = bool
  default     = false
}

# The lock keeps the placement in state: a new catalog never moves the fleet by itself; the plan
# warns when a placement at least 10 % cheaper per unit of useful work exists.
resource "computeops_placement_lock" "this" {
  intent             = var.intent
  pin_provider       = var.pin_provider
  hysteresis_percent = 10
  min_hold_hours     = 24
  auto_relock        = var.auto_relock
}

output "cloud" {
  value = computeops_placement_lock.this.cloud
}

output "instance_type" {
  value = computeops_placement_lock.this.instance_type
}

output "region" {
  value = computeops_placement_lock.this.region
}

output "instances" {
  value = computeops_placement_lock.this.instances
}

output "hourly_usd" {
  value = computeops_placement_lock.this.hourly_usd
}

output "unit_cost" {
  description = "{unit, value}: USD per 1M output tokens (inference) or per training step."
  value       = computeops_placement_lock.this.unit_cost
}

output "explanation" {
  value = computeops_placement_lock.this.explanation
}

output "drift" {
  description = "What the last refresh found on the current catalog (status, summary, saving, proposed)."
  value       = computeops_placement_lock.this.drift
}
