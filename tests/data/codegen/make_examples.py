# Generator of the chain-only example op dirs under tests/data/codegen/ (pure-vec pattern
# skeletons A, B, B+, C): DESIGN.md in the template shape with a §1 vector_selection block and
# pseudo-listing but no kernel code, SPEC.md, module_interfaces.yaml and CPU/device goldens.
# Usage: /usr/bin/python3 tests/data/codegen/make_examples.py [op ...]
import json, os, sys
ROOT = os.path.dirname(os.path.abspath(__file__))

def table(headers, rows):
    out = "| " + " | ".join(headers) + " |\n|" + "|".join("---" for _ in headers) + "|\n"
    for r in rows:
        out += "| " + " | ".join(r) + " |\n"
    return out

def design(op, o):
    dt = o["dtype"]; DT = {"float32": "FP32", "float16": "FP16"}[dt]
    esz = 4 if dt == "float32" else 2
    rows, cols = o["tile"]
    slot = rows * cols * esz
    # groups: list of (group, var, shape, depth, mutex list, purpose)
    groups = o["groups"]
    addr = 0
    consts = ["# ── 算子关键常量（coder 必须逐字使用） ──",
              f"LANES = {256 // esz}           # {DT} VF 寄存器宽度（元素数/寄存器）",
              f"MAX_N = {cols}         # UB tile 列物理尺寸，LANES 整数倍",
              f"TILE_ROWS = {rows}        # UB tile 行物理尺寸",
              f"SLOT_BYTES = TILE_ROWS * MAX_N * {esz}   # = {slot} B，单槽"]
    consts += o.get("extra_consts", [])
    consts.append("# UB 地址（32B 对齐）")
    tile_rows, tg_rows, map_rows = [], [], []
    prev = None
    for g in groups:
        gname, var, shape, depth, mutex, purpose, cname = g
        sbytes = shape[0] * shape[1] * esz
        for i in range(depth):
            nm = f"VA_{cname}{i}"
            if prev is None:
                consts.append(f"{nm} = 0x{addr:05X}")
            else:
                consts.append(f"{nm} = {prev[0]} + {prev[1]}    # 0x{addr:05X}")
            prev = (nm, "SLOT_BYTES" if sbytes == slot else str(sbytes))
            map_rows.append(["UB(Vec)", f"{purpose} slot{i}", f"`{gname}[{i}]`", f"`[{shape[0]},{shape[1]}]`", DT, "`—`",
                             f"`0x{addr:05X}`", str(sbytes), "1", "轮转" if depth > 1 else "驻留",
                             f"`0x{addr + sbytes:05X}`", f"mutex_id {mutex[i]}"])
            addr += sbytes
        tile_rows.append([purpose, f"`{var}` ({gname})", f"`[{shape[0]}, {shape[1]}]`", DT, "UB(Vec)", "`—`", str(sbytes),
                          f"depth={depth}"])
        tg_rows.append([f"`{gname}`", str(depth), "`[" + ",".join(f"[{m}]" for m in mutex) + "]`", "`next()`",
                        f"`{gname}.next()`", "auto_mutex"])
    consts.append(f"# END = 0x{addr:05X} ({addr})")
    spec_in = o["inputs"]
    sel = "vector_selection:\n"
    for st in o["steps"]:
        sel += f"  - step:                  {st['step']}\n"
        sel += "    implementation:        vf\n"
        sel += f"    api_sequence:          {st['seq']}\n"
        sel += "    decision_reason:       default_vf\n"
        sel += f"    kb_template_evidence:  {st.get('evidence', 'n/a')}\n"
        sel += "    target_version:        950/A5\n"
        sel += f"    applicable_conditions: {DT}；列尾 update_mask\n"
        if "pattern" in st:
            sel += f"    pattern:               {st['pattern']}\n"
    args = ", ".join([i[0] for i in spec_in] + ["y"])
    cases = table(["case 名", "具体 shape", "覆盖场景", "design 适配确认"],
                  [[f"`test_{op}_{n}`", f"`[{s[0]}, {s[1]}]`", why, "✅"] for n, s, why in o["cases"]])
    reduce_txt = o.get("reduce_conclusion", "- **归约轴是否可能超单 tile**：否（无归约；逐元素）。\n- **多Tile归约方案**：不涉及。")
    d = f"""## 算子名称

- **op_name**: {op}
- **设计时间**: 2026-12-02
- **基于 SPEC**: `custom/{op}/SPEC.md`

---

## §0 Module 划分（R0 输出）

### 维度契约

- **kernel 接收与处理维度**：SPEC 输入 `x` 为 2D `[B, N]` {dt}，输出 `y` 为 2D `[B, N]`；kernel 直接接收原始 2D。

### Wrapper 边界外操作

空

### 划分依据

{o['why']}，全部在 Vector 执行域，故单 Module。

### Module 列表

| Module | 目的 | 输入依赖 | 输出 | Section |
|-------|------|---------|------|---------|
| Module 1 | {o['purpose']} | {', '.join('`'+i[0]+'`' for i in spec_in)} | `y` | `section_vector` |

### 归约轴容量结论

{reduce_txt}

### Module 级数据流

```
GM x ─[pl.load]→ in_slot → {op}_vf → out_slot ─[pl.store]→ GM y
```

---

## §1 API 映射（R1 输出）

### Vector 选择（每步冻结）

```
{sel}```

### Module 1 API 调用序列

```
Module 1 — {op} ({o['pattern_label']}):
  for tile_id in 行块 (multi-core stride):
    {o['pseudo']}
```

**API 来源**：`docs/pypto_pro/api/SIMD-API/operation/vf_computation/`。

---

## §2 Tile 规划（R2 输出）

### 2.1 关键常量定义

```python
{chr(10).join(consts)}
```

### Tile 属性表

{table(["用途", "变量名", "shape", "dtype", "内存空间", "layout", "大小(字节/槽)", "备注"], tile_rows)}
### TileGroup槽位访问表

{table(["TileGroup", "depth", "每个Tile的mutex ID", "访问方式", "槽位表达式", "同步及有界/游标说明"], tg_rows)}
---

## §3 片上空间布局（R3 输出）

### 片上地址映射表（UB(Vec)）

{table(["内存空间", "用途", "变量名", "shape", "dtype", "layout", "起始字节", "每槽字节数", "槽位数", "生命周期", "结束字节（不含）", "备注"], map_rows)}
**各空间地址高水位**:
- UB(Vec): `0x{addr:05X}` ({addr} B) / 253952 (248KB) = **{addr * 100 / 253952:.1f}%**

### 分配方式选择

- **方案**: `make_tile_group` + `auto_mutex`。

---

## §4 循环与 Section 结构（R4 输出）

### 参考样例

- **主要参考样例**: `pro_ops/vf_api/test_softmax_tile_group_vf.py`（单 section_vector + 行块 striding + 双缓冲）。

### 本算子结构说明

- **Section结构**: 1 个 `section_vector()`；外层 `for tile_id in pl.range(core_id, num_tiles, num_cores)`。

---

## §5 分核策略（R5 输出）

### 分核方式

- **方案**: strided loop —— `for tile_id in pl.range(core_id, num_tiles, num_cores)`，其中 `num_tiles = ceil(B / TILE_ROWS)`。
- **host 侧 block_dim**: 仅 Vector Kernel → `vector_core_num`；`num_tiles = ceil(B / TILE_ROWS)`；`block_dim = min(get_platform_info().vector_core_num, num_tiles)`。
- **交付 launch 合同**: 恰好 1 次。唯一 kernel `{op}_kernel` 由 `{op}_wrapper` 调用一次：`{op}_kernel[None, block_dim]({args})`。

---

## §6 核间同步（R6 输出）

### cross_core 涉及判定

- **是否涉及 cross_core**: **不涉及**。

---

## §7 尾块处理（R7 输出）

### 尾块处理方案

**行尾块**：`valid_rows = pl.min(TILE_ROWS, B - row_off)`，load 前 `pl.set_validshape`。**列尾寄存器**：`vf.update_mask(pl.min(LANES, N - r*LANES))`。

---

## §8 目标测试 case（R7.5 输出 → 交付 develop）

{cases}
---

## §9 综合评估（R8 输出）

### 评估结论

- **整体**: **通过**

---

## §10 Tile 数据流全景图

```
GM x ─[load_tile / pl.load, MTE2]→ in_group.next() → {op}_vf: {o['pseudo']} → out_group.next() ─[store_tile / pl.store, MTE3]→ GM y
```
"""
    return d

def spec(op, o):
    ins = []
    for name, shape in o["inputs"]:
        ins.append({"name": name, "shape": shape, "dtype": o["dtype"], "value_range": o.get("range", [-4, 4])})
    c = {"schema_version": 1, "op_name": op, "formula": o["formula"], "supported_dtypes": [o["dtype"]],
         "inputs": ins,
         "outputs": [{"name": "y", "shape": ["B", "N"], "dtype": o["dtype"], "value_range": o.get("out_range", [-100, 100])}],
         "default_params": {}, "tolerance": {"atol": 0.001, "rtol": 0.001},
         "dynamic_axes_ranges": {"B": [1, 4096], "N": [1, o.get("spec_max", o["tile"][1])]},
         "shape_constraints": ["B >= 1", f"1 <= N <= {o.get('spec_max', o['tile'][1])}"],
         "p0_cases": [], "perf_target": None}
    return "# 算子需求规范\n\n## 机器合同\n\n```json machine-contract\n" + json.dumps(c, ensure_ascii=False, indent=2) + "\n```\n\n## 语义说明\n\n" + o["formula"] + "\n"

def mi(op, o):
    s = f"schema_version: 1\nop: {op}\nmodule_count: 1\nhas_cross_core: false\nis_fusion: false\nprimary_inputs:\n"
    for name, shape in o["inputs"]:
        s += f"  - {{name: {name}, shape: \"[{', '.join(shape)}]\", dtype: {o['dtype']}}}\n"
    s += f"""modules:
  - id: 1
    name: {op}_vf
    description: >
      {o['purpose']}
    section: vector
    golden_steps:
      - "{o['formula']}"
    inputs:
"""
    for name, _ in o["inputs"]:
        s += f"      - {{name: {name}, source: primary}}\n"
    s += f"""    outputs:
      - {{name: y, shape: "[B, N]", dtype: {o['dtype']}}}
    golden_stage_fn: {op}_golden_stage1
final_outputs:
  - {{name: y, source: module_1}}
"""
    return s

GOLDEN = '''"""Device golden for {op}: exports `_get_device()` (the NPU when visible, else the CPU)."""
import os

import torch


def _get_device():
    """Return the device tests must use: an NPU when available, else the CPU."""
    try:
        import torch_npu  # noqa: F401
    except Exception:
        return torch.device("cpu")
    try:
        if torch.npu.is_available() and torch.npu.device_count() > 0:
            index = int(os.environ.get("TILE_FWK_DEVICE_ID", "0"))
            if 0 <= index < torch.npu.device_count():
                return torch.device(f"npu:{{index}}")
    except Exception:
        pass
    return torch.device("cpu")


def {op}_golden({args}):
    """{formula}"""
    from {op}_golden_cpu import {op}_golden_cpu
    return {op}_golden_cpu({args}).to({first}.device)
'''

GOLDEN_CPU = '''"""CPU FP32 golden for {op}: {formula}. No pypto imports."""
import torch


def {op}_golden_cpu({args}):
    """FP32 CPU reference of {op}."""
{body}
'''

def write(op, o):
    d = os.path.join(ROOT, op)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "DESIGN.md"), "w").write(design(op, o))
    open(os.path.join(d, "SPEC.md"), "w").write(spec(op, o))
    open(os.path.join(d, "module_interfaces.yaml"), "w").write(mi(op, o))
    args = ", ".join(i[0] for i in o["inputs"])
    open(os.path.join(d, f"{op}_golden.py"), "w").write(GOLDEN.format(op=op, args=args, formula=o["formula"], first=o["inputs"][0][0]))
    open(os.path.join(d, f"{op}_golden_cpu.py"), "w").write(GOLDEN_CPU.format(op=op, args=args, formula=o["formula"], body=o["golden"]))
    json.dump({"schema_version": 3, "op": op, "class_id": ".", "topologies": [o["topology"]],
               "properties": {"dtypes": [o["dtype"]], "ranks": [2], "unaligned_shapes": True, "tail_blocks": True,
                              "long_axis": False, "mixed_precision": False, "dynamic_dims": True, "is_list": False},
               "optional_patterns": [], "required_constraints": [], "no_matching_pattern": True},
              open(os.path.join(d, "KB_SELECTION.json"), "w"), ensure_ascii=False, indent=2)
    json.dump({"schema_version": 1, "bindings": []}, open(os.path.join(d, "DESIGN_BINDINGS.json"), "w"), indent=2)

IO = [("in_group", "in_slot", None, 2, [0, 1], "输入暂存", "IN"), ("out_group", "out_slot", None, 2, [2, 3], "输出暂存", "OUT")]
def io(tile):
    return [(g, v, list(tile), dp, m, p, c) for g, v, _, dp, m, p, c in IO]

CASES_A = [("aligned", (8, 128), "全整除"), ("row_tail", (9, 128), "行尾块"), ("col_tail", (8, 100), "列尾寄存器"),
           ("tail2d", (5, 37), "双轴尾块"), ("multitile", (70, 256), "多 tile + 多核")]

OPS = {
 "swish": dict(dtype="float32", tile=(8, 256), groups=io((8, 256)), inputs=[("x", ["B", "N"])],
   why="逐元素 `y = x / (1 + exp(-x))`，元素间无依赖", purpose="逐元素 swish", topology="elementwise",
   formula="y = x / (1 + exp(-x))", pattern_label="Pattern A",
   steps=[{"step": "swish 逐元素", "seq": "vf.load_align → vf.muls(x, -1.0) → vf.exp → vf.adds(1.0) → vf.div(x, _) → vf.store_align", "pattern": "A"}],
   pseudo="y = vf.div(x, vf.adds(vf.exp(vf.muls(x, -1.0)), 1.0))",
   golden="    xf = x.detach().to(device=\"cpu\", dtype=torch.float32)\n    return xf / (1.0 + torch.exp(-xf))",
   cases=CASES_A),
 "half_relu_exp": dict(dtype="float16", tile=(8, 512), groups=io((8, 512)), inputs=[("x", ["B", "N"])],
   why="逐元素 `y = exp(0.5 * relu(x))`（fp16），元素间无依赖", purpose="逐元素 exp(0.5·relu(x))", topology="elementwise",
   formula="y = exp(0.5 * relu(x))", pattern_label="elementwise",
   steps=[{"step": "relu-scale-exp 逐元素", "seq": "vf.load_align → vf.relu → vf.muls(0.5) → vf.exp → vf.store_align"}],
   pseudo="y = vf.exp(vf.muls(vf.relu(x), 0.5))",
   golden="    xf = x.detach().to(device=\"cpu\", dtype=torch.float32)\n    return torch.exp(0.5 * torch.relu(xf))",
   cases=[("aligned", (8, 256), "全整除"), ("row_tail", (11, 256), "行尾块"), ("col_tail", (8, 200), "列尾寄存器"),
          ("tail2d", (3, 77), "双轴尾块"), ("multitile", (40, 512), "多 tile")]),
 "row_softmax": dict(dtype="float32", tile=(8, 512), groups=io((8, 512)), inputs=[("x", ["B", "N"])],
   why="逐行 softmax：行 max → exp(x-max) → 行 sum → 除", purpose="逐行 softmax（reduce + broadcast）", topology="row-reduction",
   formula="y = softmax(x, dim=-1)", pattern_label="Pattern B",
   extra_consts=["NEG_INF = -1e30      # reduce_max 初值（有限负哨兵）"],
   reduce_conclusion="- **归约轴是否可能超单 tile**：否（N ≤ 512 = MAX_N，整行装入单 tile）。\n- **多Tile归约方案**：不涉及。",
   steps=[{"step": "pass1 行 max", "seq": "vf.load_align → mx = vf.reduce_max(x, init=NEG_INF)", "pattern": "B"},
          {"step": "pass2 exp+sum", "seq": "vf.load_align → vf.sub(x, mx) → vf.exp → sm = vf.reduce_sum", "pattern": "B"},
          {"step": "pass3 div+store", "seq": "vf.load_align → vf.sub(x, mx) → vf.exp → vf.div(_, sm) → vf.store_align", "pattern": "B"}],
   pseudo="mx = max_j x; sm = sum_j exp(x - mx); y = exp(x - mx) / sm",
   golden="    xf = x.detach().to(device=\"cpu\", dtype=torch.float32)\n    return torch.softmax(xf, dim=-1)",
   cases=[("aligned", (8, 128), "全整除"), ("row_tail", (9, 128), "行尾块"), ("col_tail", (8, 100), "列尾寄存器"),
          ("tail2d", (5, 37), "双轴尾块"), ("multitile", (33, 512), "多 tile")]),
 "rmsnorm": dict(dtype="float32", tile=(8, 512), inputs=[("x", ["B", "N"]), ("gamma", ["1", "N"])],
   groups=io((8, 512))[:1] + [("gamma_group", "gamma_slot", [1, 512], 1, [4], "gamma 驻留", "GAMMA")] + io((8, 512))[1:],
   why="逐行 RMSNorm：行平方和 → rms → x/rms*gamma", purpose="逐行 RMSNorm（reduce + gamma）", topology="row-reduction",
   formula="y = x / sqrt(mean(x^2, dim=-1) + EPS) * gamma", pattern_label="reduce + gamma",
   extra_consts=["EPS = 1e-6           # rmsnorm epsilon"],
   reduce_conclusion="- **归约轴是否可能超单 tile**：否（N ≤ 512 = MAX_N）。\n- **多Tile归约方案**：不涉及。",
   steps=[{"step": "pass1 行均方", "seq": "vf.load_align → vf.mul(x, x) → vf.reduce_sum → vf.div(_, N) → vf.adds(_, EPS) → rms = vf.sqrt"},
          {"step": "pass2 归一化+gamma", "seq": "vf.load_align → vf.div(x, rms) → vf.mul(_, gamma) → vf.store_align"}],
   pseudo="rms = sqrt(sum_j x*x / N + EPS); y = x / rms * gamma",
   golden="    xf = x.detach().to(device=\"cpu\", dtype=torch.float32)\n    gf = gamma.detach().to(device=\"cpu\", dtype=torch.float32)\n    return xf / torch.sqrt((xf * xf).mean(dim=-1, keepdim=True) + 1e-6) * gf",
   cases=[("aligned", (8, 128), "全整除"), ("row_tail", (9, 128), "行尾块"), ("col_tail", (8, 100), "列尾寄存器"),
          ("tail2d", (5, 37), "双轴尾块"), ("multitile", (33, 512), "多 tile")]),
}


OPS["rmsnorm_long"] = dict(OPS["rmsnorm"])
OPS["rmsnorm_long"].update(tile=(4, 1024),
   groups=[("in_group", "in_slot", [4, 1024], 2, [0, 1], "输入暂存", "IN"),
           ("gamma_group", "gamma_slot", [1, 1024], 1, [4], "gamma 分块", "GAMMA"),
           ("out_group", "out_slot", [4, 1024], 2, [2, 3], "输出暂存", "OUT"),
           ("acc_group", "acc_slot", [4, 64], 1, [5], "行平方和累加器", "ACC")],
   why="逐行 RMSNorm，行长 N 最大 4096 超过单 tile 的 1024 列", purpose="逐行 RMSNorm（跨 tile 归约 + gamma）",
   pattern_label="cross-tile reduce",
   reduce_conclusion="- **归约轴是否可能超单 tile**：是（N ≤ 4096，tile 列 MAX_N = 1024）。\n- **多Tile归约方案**：常规多遍：pass1 逐列块累加行平方和到 UB 累加器 acc_group（每行 lane0），pass2 逐列块归一化并乘 gamma。",
   cases=[("aligned", (4, 1024), "单列块全整除"), ("row_tail", (5, 1024), "行尾块"), ("col_tail", (4, 1000), "列尾寄存器"),
          ("multichunk", (6, 2500), "3 个列块 + 列尾 + 行尾"), ("long", (9, 4096), "最长行 4 个列块")],
   spec_max=4096)

OPS["softmax_long"] = dict(OPS["row_softmax"])
OPS["softmax_long"].update(tile=(4, 512),
   groups=[("in_group", "in_slot", [4, 512], 2, [0, 1], "输入暂存", "IN"),
           ("out_group", "out_slot", [4, 512], 2, [2, 3], "输出暂存", "OUT"),
           ("acc_max_group", "acc_max", [4, 64], 1, [4], "行 max 累加器", "ACC_MAX"),
           ("acc_sum_group", "acc_sum", [4, 64], 1, [5], "行 sum 累加器", "ACC_SUM")],
   why="逐行 softmax，行长 N 最大 2048 超过单 tile 的 512 列", purpose="逐行 softmax（跨 tile 归约）",
   pattern_label="Pattern C",
   reduce_conclusion="- **归约轴是否可能超单 tile**：是（N ≤ 2048，tile 列 MAX_N = 512）。\n- **多Tile归约方案**：常规多遍：pass1 逐列块累加行 max 到 acc_max_group，pass2 逐列块累加 exp(x-max) 的行和到 acc_sum_group，pass3 逐列块输出。",
   steps=[dict(st, pattern="C") for st in OPS["row_softmax"]["steps"]],
   cases=[("aligned", (4, 512), "单列块全整除"), ("row_tail", (5, 512), "行尾块"), ("col_tail", (4, 100), "列尾寄存器"),
          ("multichunk", (5, 1000), "2 个列块 + 双轴尾块"), ("long", (3, 2048), "最长行 4 个列块")],
   spec_max=2048)

OPS["add_relu"] = dict(OPS["swish"])
OPS["add_relu"].update(inputs=[("x", ["B", "N"]), ("z", ["B", "N"])],
   groups=[("x_group", "x_slot", [8, 256], 2, [0, 1], "x 暂存", "X"),
           ("z_group", "z_slot", [8, 256], 2, [2, 3], "z 暂存", "Z"),
           ("y_group", "y_slot", [8, 256], 2, [4, 5], "y 暂存", "Y")],
   why="逐元素 `y = relu(x + z)`，两个同形输入，元素间无依赖", purpose="逐元素 relu(x + z)",
   formula="y = relu(x + z)", pattern_label="Pattern A",
   steps=[{"step": "add-relu 逐元素", "seq": "vf.load_align → vf.add(x, z) → vf.relu → vf.store_align", "pattern": "A"}],
   pseudo="y = vf.relu(vf.add(x, z))",
   golden="    xf = x.detach().to(device=\"cpu\", dtype=torch.float32)\n    zf = z.detach().to(device=\"cpu\", dtype=torch.float32)\n    return torch.relu(xf + zf)")

OPS["layernorm"] = dict(OPS["rmsnorm"])
OPS["layernorm"].update(inputs=[("x", ["B", "N"]), ("gamma", ["1", "N"]), ("beta", ["1", "N"])],
   groups=[("in_group", "in_slot", [8, 512], 2, [0, 1], "输入暂存", "IN"),
           ("gamma_group", "gamma_slot", [1, 512], 1, [4], "gamma 驻留", "GAMMA"),
           ("beta_group", "beta_slot", [1, 512], 1, [5], "beta 驻留", "BETA"),
           ("out_group", "out_slot", [8, 512], 2, [2, 3], "输出暂存", "OUT")],
   why="逐行 LayerNorm：行均值 → 行方差 → (x-mean)/std*gamma+beta", purpose="逐行 LayerNorm（reduce + gamma/beta）",
   formula="y = (x - mean(x)) / sqrt(var(x) + EPS) * gamma + beta", pattern_label="Pattern B+",
   extra_consts=["EPS = 1e-5           # layernorm epsilon"],
   steps=[{"step": "pass1 行均值", "seq": "vf.load_align → s = vf.reduce_sum(x) → mean = vf.div(_, N)", "pattern": "B+"},
          {"step": "pass2 行方差", "seq": "vf.load_align → vf.sub(x, mean) → vf.mul(_, _) → vf.reduce_sum → vf.div(_, N) → vf.adds(_, EPS) → std = vf.sqrt", "pattern": "B+"},
          {"step": "pass3 归一化+仿射", "seq": "vf.load_align → vf.sub(x, mean) → vf.div(_, std) → vf.mul(_, gamma) → vf.add(_, beta) → vf.store_align", "pattern": "B+"}],
   pseudo="mean = sum_j x / N; std = sqrt(sum_j (x-mean)^2 / N + EPS); y = (x - mean) / std * gamma + beta",
   golden="    xf = x.detach().to(device=\"cpu\", dtype=torch.float32)\n    gf = gamma.detach().to(device=\"cpu\", dtype=torch.float32)\n    bf = beta.detach().to(device=\"cpu\", dtype=torch.float32)\n    return torch.nn.functional.layer_norm(xf, (xf.shape[-1],), gf[0], bf[0], eps=1e-5)")

for op in (sys.argv[1:] or OPS):
    write(op, OPS[op])
print("ok")
