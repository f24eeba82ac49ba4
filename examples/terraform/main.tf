# Plain Terraform / OpenTofu: the engine chooses an AWS instance type for the intent, the lock keeps
# it in state, and aws_instance reads the locked attributes. Install the provider first:
#   computeops provider install --dir ~/.terraform-mirror --cli-config ~/.terraform-mirror/terraformrc
#   export TF_CLI_CONFIG_FILE=~/.terraform-mirror/terraformrc
# then `terraform init && terraform plan` here (hashicorp/aws comes from its registry as usual).

terraform {
  required_version = ">= 1.8"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
    computeops = {
      source  = "terraform.local/computeops/computeops"
      version = ">= 0.1.0"
    }
  }
}

variable "ami" {
  description = "A GPU AMI in the chosen region (e.g. an AWS Deep Learning AMI)."
  type        = string
}

module "placement" {
  source       = "./placement"
  intent       = file("${path.module}/../support-chat.yaml")
  pin_provider = "aws"
}

provider "aws" {
  region = module.placement.region
}

resource "aws_instance" "serving" {
  count         = module.placement.instances
  ami           = var.ami
  instance_type = module.placement.instance_type

  metadata_options {
    http_tokens = "required" # IMDSv2
  }
  root_block_device {
    encrypted = true
  }
  tags = {
    Name        = "support-chat-${count.index}"
    "unit-cost" = "${module.placement.unit_cost.value} ${module.placement.unit_cost.unit}"
  }
}

output "placement" {
  value = "${module.placement.instances} x ${module.placement.instance_type} in ${module.placement.region}"
}

output "why" {
  value = module.placement.explanation
}

output "usd_per_million_tokens_at_measured_rate" {
  description = "Re-price with a measured throughput (here 18,000 tok/s) using the provider function."
  value       = provider::computeops::usd_per_million_tokens(module.placement.hourly_usd, 18000)
}
