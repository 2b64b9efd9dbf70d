/*
 * opdev.h: the C ABI of opdev, for orchestrators that embed Stage 4 of PyPTO-Pro operator
 * development without shelling out (any language with a C FFI; the Python binding in
 * bindings/python uses it through ctypes).
 *
 * Conventions
 * -----------
 * - Every step takes a request as a UTF-8 JSON object and returns, through `*result`, a
 *   UTF-8 JSON document: the same document the matching `opdev <step> --json` command
 *   prints. The caller frees it with opdev_string_free(). `*result` is NULL on error.
 * - Every step returns an integer status, the same number the command exits with:
 *     OPDEV_OK (0)        clean / PASS
 *     OPDEV_FINDINGS (1)  findings of severity error / FAIL (the document says which)
 *     OPDEV_ERROR (2)     the call itself failed (bad request, unreadable input, ...):
 *                         opdev_last_error(ctx) says why; *result holds {"error": "..."}.
 * - No C++ exception, abort or exit crosses this boundary.
 * - A context is not shared between threads without a lock; distinct contexts may be used
 *   concurrently from different threads.
 * - Paths in requests are file-system paths, relative to the process's working directory.
 * - Request keys are the command's option names with '-' written '_' ("--module-k 2" is
 *   {"module_k": 2}); docs/embedding.md lists them per step. Every step runs the same
 *   library call (opdev/steps/step.h) as the command, so the documents are byte-identical.
 *
 * ABI versioning: OPDEV_ABI_VERSION is the soname's number (libopdev_c.so.1). Functions are
 * only ever added within one ABI version.
 */
#ifndef OPDEV_H
#define OPDEV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define OPDEV_EXPORT __declspec(dllexport)
#else
#define OPDEV_EXPORT __attribute__((visibility("default")))
#endif

#define OPDEV_ABI_VERSION 1

#define OPDEV_OK 0
#define OPDEV_FINDINGS 1
#define OPDEV_ERROR 2

/* Log levels passed to the log callback. */
#define OPDEV_LOG_INFO 0
#define OPDEV_LOG_WARNING 1
#define OPDEV_LOG_ERROR 2

typedef struct opdev_context opdev_context;

/* Receives progress and log lines of long steps (run, stage). `message` is valid only
 * during the call. */
typedef void (*opdev_log_fn)(void *user_data, int level, const char *message);

/* The library version, e.g. "0.1.0". Static storage; do not free. */
OPDEV_EXPORT const char *opdev_version(void);

/* OPDEV_ABI_VERSION of the loaded library. */
OPDEV_EXPORT int opdev_abi_version(void);

/* Creates a context. `options_json` may be NULL or a JSON object with optional keys:
 *   "target":  "a5" (default) or "a3"
 *   "kb_root": directory holding topology-map.json and the KB files
 *   "python":  interpreter when a request names none (default "/usr/bin/python3"): run's
 *              golden (sim) or test (npu), selfcheck's import probe, stage's NPU run
 * Returns NULL when the options are invalid (then opdev_last_error(NULL) says why). */
OPDEV_EXPORT opdev_context *opdev_context_new(const char *options_json);

/* Frees a context. NULL is allowed. */
OPDEV_EXPORT void opdev_context_free(opdev_context *ctx);

/* Installs (or, with NULL, removes) the log callback of a context. */
OPDEV_EXPORT void opdev_set_log_callback(opdev_context *ctx, opdev_log_fn fn, void *user_data);

/* The message of the last OPDEV_ERROR on this context ("" if none). With ctx == NULL, the
 * last error of opdev_context_new on this thread. Valid until the next call on ctx. */
OPDEV_EXPORT const char *opdev_last_error(const opdev_context *ctx);

/* Frees a string returned through `result`. NULL is allowed. */
OPDEV_EXPORT void opdev_string_free(char *s);

/* check: {"op_dir": "..."} -> the `opdev check --json` document. */
OPDEV_EXPORT int opdev_check(opdev_context *ctx, const char *request_json, char **result);

/* plan: {"op_dir": "...", "module_k": K | "finalize": true} -> `opdev plan --json`. */
OPDEV_EXPORT int opdev_plan(opdev_context *ctx, const char *request_json, char **result);

/* gen: {"op_dir": "...", "module_k"?, "finalize"?, "out"?} -> `opdev gen --json`. */
OPDEV_EXPORT int opdev_gen(opdev_context *ctx, const char *request_json, char **result);

/* lint: {"file": ["kernel.py", ...], "allow_warnings"?, "no_context"?, "no_syntax"?,
 * "catalog"?} or {"show": "NAME"} -> `opdev lint --json`. */
OPDEV_EXPORT int opdev_lint(opdev_context *ctx, const char *request_json, char **result);

/* sim: {"file": "kernel.py", "entry": "NAME", "in"?: ["x.npy", ...], "scalar"?: [1.5, ...],
 * "out_dir": "DIR", "block_dim"?, "target"?, "vector_cores"?, "cube_cores"?, "work_budget"?,
 * "schedule_seed"?, "pipe_sync"?, "tiling_key"?, "datatype"?} or {"hazards": true} -> `opdev sim --json` (writes
 * DIR/<output>.npy).
 * "work_budget": work units (statements, register ops, tile elements / 64) before the run
 * stops with SIM-WORK-BUDGET; 0 or absent: the default from the problem size. Every run ends
 * by itself. "schedule_seed": 0 or absent: the fixed core order; N > 0: a reproducible
 * permuted interleaving of the launch's concurrent cores. "pipe_sync": true or absent: the
 * pipes of each core are checked (SIM-PIPE-*); false: one core's pipes run in program order.
 * "tiling_key": ["NAME=VALUE", ...] and "datatype": ["PARAM=DTYPE", ...]: the tiling key and
 * the datatype dict a kernel entry's launch takes (@pl.jit(tiling_key=...), datatype=...). */
OPDEV_EXPORT int opdev_sim(opdev_context *ctx, const char *request_json, char **result);

/* budget: {"path": "kernel.py or op dir", "svg"?: "file"} -> `opdev budget --json`. */
OPDEV_EXPORT int opdev_budget(opdev_context *ctx, const char *request_json, char **result);

/* run: {"op_dir": "...", "backend": "sim"|"npu", "case"?} -> `opdev run --json`. */
OPDEV_EXPORT int opdev_run(opdev_context *ctx, const char *request_json, char **result);

/* compare: {"pairs": [["actual.npy", "golden.npy"], ...], "dtype"?, "tile"?: [R, C]}
 * -> `opdev compare --json`. */
OPDEV_EXPORT int opdev_compare(opdev_context *ctx, const char *request_json, char **result);

/* compare of in-memory buffers: element type names as in opdev compare --dtype
 * ("float16", "bfloat16", "float32", ...), C-order shapes. The buffers are read in place,
 * not copied. `options_json` may be NULL or {"dtype"?: ..., "tile"?: [R, C]}. */
OPDEV_EXPORT int opdev_compare_buffers(opdev_context *ctx, const void *actual,
                                       const char *actual_dtype, const void *golden,
                                       const char *golden_dtype, const int64_t *shape,
                                       size_t ndim, const char *options_json, char **result);

/* usage generate: {"op_dir": "...", "module_k"?, "finalize"?} -> `opdev usage generate --json`. */
OPDEV_EXPORT int opdev_usage_generate(opdev_context *ctx, const char *request_json, char **result);

/* usage check: {"op_dir": "...", "mode"?} -> `opdev usage check --json`. */
OPDEV_EXPORT int opdev_usage_check(opdev_context *ctx, const char *request_json, char **result);

/* selfcheck: {"op_dir": "...", "module_k"?, "finalize"?, "backend"?} -> `opdev selfcheck --json`. */
OPDEV_EXPORT int opdev_selfcheck(opdev_context *ctx, const char *request_json, char **result);

/* stage: {"op_dir": "...", "backend"?: "sim"|"npu", "module_k"?, "finalize"?, "no_gen"?, "design_cases"?}
 * -> `opdev stage --json`. */
OPDEV_EXPORT int opdev_stage(opdev_context *ctx, const char *request_json, char **result);

/* A tensor in the caller's memory for opdev_launch: C-order contiguous elements. */
typedef struct opdev_tensor {
  void *data;           /* read before the launch; overwritten with the result when a
                           simulated core wrote the tensor; may be NULL for 0 elements */
  const char *dtype;    /* "float16", "bfloat16", "float32", "int8", "int32", "bool", ... */
  const int64_t *shape; /* ndim dimensions */
  size_t ndim;
  const char *name;     /* for messages (the kernel parameter); NULL: "tensor<i>" */
} opdev_tensor;

/* launch: runs one `kernel[stream, block_dim](*args)` launch of a PyPTO-Pro kernel on the
 * CPU simulator; the CPU device's Python package (bindings/python/device) calls it for every
 * kernel launch. Request:
 *   {"file": "k.py", "kernel": "NAME", "block_dim"?: 1, "args"?: [V, ...],
 *    "kwargs"?: {"name": V}, "globals"?: {"NAME": V}, "target"?: "a5"|"a3",
 *    "vector_cores"?: 48, "cube_cores"?: 24, "check_api"?: true,
 *    "work_budget"?: 0 (0: the default from the tensors' sizes),
 *    "schedule_seed"?: 0 (0: the fixed core order; N > 0 permutes the interleaving),
 *    "pipe_sync"?: true (the intra-core pipe model, SIM-PIPE-*; false: program order),
 *    "tiling_key"?: {"FIELD": V} (the dict of kernel[stream, block_dim, {...}]),
 *    "tiling_key_schema"?: {"class": "Name", "fields": {"FIELD": [int, ...]}} (the schema
 *    of @pl.jit(tiling_key=...) as the host resolved it; it replaces the one read from the
 *    source, the host having checked the key against it)}
 * A value V is null, a bool, a number, a string, {"tensor": i} (tensors[i]),
 * {"tuple": [V...]}, {"list": [V...]}, {"object": "Type", "fields": {"f": V}} (a dataclass
 * instance), {"const": "pl.DT_FP16"} (a PyPTO-Pro constant) or {"float": "inf"|"-inf"|"nan"}.
 * "globals" are the module values the host resolved; they replace the simulator's own
 * evaluation of those names. The file is parsed and lowered once per content hash.
 * Document: {"file", "kernel", "block_dim", "rejected" (compile-time API misuse: nothing
 * ran), "completed", "clean", "cache_hit", "written": [tensor indices written back],
 * "hazards": [...], "stats": {...}}. Status OPDEV_OK: ran clean; OPDEV_FINDINGS: rejected,
 * an error hazard, or the run stopped; OPDEV_ERROR: unusable request or tensors. The call
 * always returns (the simulator's work is bounded). */
OPDEV_EXPORT int opdev_launch(opdev_context *ctx, const char *request_json,
                              const opdev_tensor *tensors, size_t ntensors, char **result);

#ifdef __cplusplus
}
#endif

#endif /* OPDEV_H */
