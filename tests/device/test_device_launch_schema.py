"""The launch document (opdev_launch) of a clean launch and of a launch with a hazard matches
docs/schemas/launch.schema.json (the e2e suite's standard-library validator)."""

import os
import sys

import pytest
import torch

import opdev.device as device
import test_device_findings as findings
import test_device_tile_add as tile_add

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from jsonschema_subset import validate  # noqa: E402

SCHEMA = os.path.join(ROOT, "docs", "schemas", "launch.schema.json")


def test_clean_launch_document():
    x, y, z = torch.randn([32, 64]), torch.randn([32, 64]), torch.empty([32, 64])
    tile_add.mul_fp32_kernel[None, 1](x, y, z)
    doc = tile_add.mul_fp32_kernel.last_launch
    assert doc["clean"] and doc["written"] == [2]
    assert validate(doc, SCHEMA) == []


def test_hazard_launch_document():
    x, y = torch.randn([64, 64]), torch.zeros([64, 64])
    with pytest.raises(device.KernelHazardError):
        findings.store_one_row_off_kernel[None, 1](x, y)
    doc = findings.store_one_row_off_kernel.last_launch
    assert not doc["clean"] and doc["hazards"][0]["code"] == "SIM-GM-OOB"
    assert validate(doc, SCHEMA) == []
    broken = dict(doc, block_dim=0, written="all")
    assert len(validate(broken, SCHEMA)) >= 2
