/* Tests of the C ABI (opdev.h) from C: versions, context options, errors, compare on
 * in-memory buffers, the whole round (check -> plan -> gen -> budget -> selfcheck ->
 * run(sim) -> compare -> usage generate/check -> stage) on a copy of examples/softmax with
 * every document compared byte-for-byte with the `opdev <step> --json` output and status,
 * and several contexts used concurrently on several threads.
 *
 * Usage: abi_test OPDEV_BIN SOURCE_DIR KB_ROOT [--quick]   (--quick: no round) */
#define _GNU_SOURCE
#include "opdev.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int failures = 0;
static int checks = 0;

#define EXPECT(cond)                                                          \
  do {                                                                        \
    ++checks;                                                                 \
    if (!(cond)) {                                                            \
      ++failures;                                                             \
      fprintf(stderr, "%s:%d: expectation failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                         \
  } while (0)

/* The stdout of a shell command (stderr discarded); *exit_code gets its exit status. */
static char *read_command_status(const char *cmd, int *exit_code) {
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (cap - len < 1024) buf = realloc(buf, cap *= 2);
  }
  buf[len] = '\0';
  int st = pclose(p);
  if (exit_code) *exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return buf;
}

static char *read_command(const char *cmd) { return read_command_status(cmd, NULL); }

static void test_versions(void) {
  EXPECT(opdev_abi_version() == OPDEV_ABI_VERSION);
  EXPECT(strlen(opdev_version()) > 0);
}

static void test_context_options(void) {
  opdev_context *bad = opdev_context_new("{\"target\": \"a9\"}");
  EXPECT(bad == NULL);
  EXPECT(strstr(opdev_last_error(NULL), "a9") != NULL);
  EXPECT(opdev_context_new("{\"colour\": \"red\"}") == NULL);
  EXPECT(strstr(opdev_last_error(NULL), "colour") != NULL);
  EXPECT(opdev_context_new("not json") == NULL);
  opdev_context *ok = opdev_context_new(NULL);
  EXPECT(ok != NULL);
  EXPECT(strcmp(opdev_last_error(ok), "") == 0);
  opdev_context_free(ok);
  opdev_context_free(NULL);
  opdev_string_free(NULL);
}

static void test_request_errors(void) {
  opdev_context *ctx = opdev_context_new("{\"target\": \"a5\"}");
  char *out = NULL;
  EXPECT(opdev_check(ctx, "{not json", &out) == OPDEV_ERROR);
  EXPECT(out != NULL && strstr(out, "\"error\"") != NULL);
  EXPECT(strstr(opdev_last_error(ctx), "JSON") != NULL);
  opdev_string_free(out);
  EXPECT(opdev_check(ctx, "[1, 2]", &out) == OPDEV_ERROR);
  opdev_string_free(out);
  EXPECT(opdev_check(ctx, "{}", &out) == OPDEV_ERROR); /* op_dir is required */
  EXPECT(strstr(opdev_last_error(ctx), "op_dir") != NULL);
  opdev_string_free(out);
  EXPECT(opdev_check(ctx, "{\"op_dir\": 3}", &out) == OPDEV_ERROR);
  opdev_string_free(out);
  EXPECT(opdev_check(NULL, "{}", &out) == OPDEV_ERROR);
  EXPECT(out == NULL);
  opdev_context_free(ctx);
}

static void test_compare_buffers(void) {
  opdev_context *ctx = opdev_context_new(NULL);
  float golden[64], actual[64];
  for (int i = 0; i < 64; ++i) golden[i] = actual[i] = (float)i * 0.25f - 3.0f;
  int64_t shape[2] = {8, 8};
  char *out = NULL;
  EXPECT(opdev_compare_buffers(ctx, actual, "float32", golden, "float32", shape, 2, NULL, &out) ==
         OPDEV_OK);
  EXPECT(out && strstr(out, "\"verdict\": \"PASS\"") != NULL);
  opdev_string_free(out);
  /* Every element of the last row off by 1.0: 8/64 fail -> matched_ratio 0.875 < 0.99. */
  for (int i = 56; i < 64; ++i) actual[i] += 1.0f;
  EXPECT(opdev_compare_buffers(ctx, actual, "float32", golden, "float32", shape, 2,
                               "{\"tile\": [4, 4]}", &out) == OPDEV_FINDINGS);
  EXPECT(out && strstr(out, "\"verdict\": \"FAIL\"") != NULL);
  EXPECT(out && strstr(out, "0.8750") != NULL);
  opdev_string_free(out);
  EXPECT(opdev_compare_buffers(ctx, actual, "complex64", golden, "float32", shape, 2, NULL, &out) ==
         OPDEV_ERROR);
  EXPECT(strstr(opdev_last_error(ctx), "complex64") != NULL);
  opdev_string_free(out);
  opdev_context_free(ctx);
}

static void test_check_matches_command(const char *opdev_bin, const char *source_dir,
                                       const char *kb_root) {
  char request[4096], cmd[8192];
  snprintf(request, sizeof request, "{\"op_dir\": \"%s/examples/softmax\", \"kb_root\": \"%s\"}",
           source_dir, kb_root);
  opdev_context *ctx = opdev_context_new(NULL);
  char *out = NULL;
  int status = opdev_check(ctx, request, &out);
  EXPECT(status == OPDEV_OK);
  EXPECT(out && strstr(out, "\"status\": \"clean\"") != NULL);
  snprintf(cmd, sizeof cmd, "'%s' check '%s/examples/softmax' --kb-root '%s' --json", opdev_bin,
           source_dir, kb_root);
  char *cli = read_command(cmd);
  EXPECT(cli != NULL && out != NULL && strcmp(cli, out) == 0);
  free(cli);
  opdev_string_free(out);
  opdev_context_free(ctx);
}

typedef int (*step_fn)(opdev_context *, const char *, char **);

/* Runs one step through the ABI and the same step with the command; the documents must be
 * byte-identical and the status equal to the exit code, and to `expected_status`
 * (ANY_VERDICT: 0 or 1, for steps whose verdict depends on the simulator, not on the ABI).
 * Returns the ABI document (free it). */
#define ANY_VERDICT (-1)

/* The same, with `op_dir` (if not NULL) restored between the two calls: both front-ends
 * start from the same files (usage generate keeps what an earlier generate wrote). */
static char *same_as_command_in(const char *what, step_fn fn, opdev_context *ctx,
                                const char *request, const char *opdev_bin, const char *cli_args,
                                int expected_status, const char *op_dir) {
  char *out = NULL, cmd[8192];
  if (op_dir) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s.before' && cp -a '%s' '%s.before'", op_dir, op_dir, op_dir);
    EXPECT(system(cmd) == 0);
  }
  int status = fn(ctx, request, &out);
  if (op_dir) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mv '%s.before' '%s'", op_dir, op_dir, op_dir);
    EXPECT(system(cmd) == 0);
  }
  snprintf(cmd, sizeof cmd, "'%s' %s --json 2>/dev/null", opdev_bin, cli_args);
  int exit_code = -1;
  char *cli = read_command_status(cmd, &exit_code);
  ++checks;
  int status_ok = expected_status == ANY_VERDICT ? (status == OPDEV_OK || status == OPDEV_FINDINGS)
                                                : status == expected_status;
  if (!status_ok || exit_code != status || !out || !cli || strcmp(out, cli) != 0) {
    ++failures;
    size_t at = 0;
    while (out && cli && out[at] && out[at] == cli[at]) ++at;
    fprintf(stderr, "%s: ABI status %d, command exit %d, expected %d; documents %s (at byte %zu)\n"
            "  ABI:     %.300s\n  command: %.300s\n  error: %s\n", what, status, exit_code,
            expected_status, out && cli && strcmp(out, cli) == 0 ? "equal" : "differ", at,
            out ? out + at : "(null)", cli ? cli + at : "(null)", opdev_last_error(ctx));
  }
  free(cli);
  return out;
}
static char *same_as_command(const char *what, step_fn fn, opdev_context *ctx,
                             const char *request, const char *opdev_bin, const char *cli_args,
                             int expected_status) {
  return same_as_command_in(what, fn, ctx, request, opdev_bin, cli_args, expected_status, NULL);
}

/* The whole round on a copy of examples/softmax (in a fresh temporary workspace). */
static void test_round_matches_command(const char *bin, const char *source_dir, const char *kb_root) {
  char ws[] = "/tmp/opdev_abi_round_XXXXXX";
  if (!mkdtemp(ws)) {
    EXPECT(!"mkdtemp");
    return;
  }
  char op[1024], cmd[8192], req[4096], args[4096];
  snprintf(op, sizeof op, "%s/custom/softmax", ws);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s/custom' && cp -r '%s/examples/softmax' '%s'", ws,
           source_dir, op);
  EXPECT(system(cmd) == 0);
  char options[2048];
  snprintf(options, sizeof options, "{\"kb_root\": \"%s\"}", kb_root);
  opdev_context *ctx = opdev_context_new(options);
  EXPECT(ctx != NULL);
  if (!ctx) return;
  char *doc;
#define STEP(name, fn, request_fmt, args_fmt, status)                       \
  do {                                                                       \
    snprintf(req, sizeof req, request_fmt, op);                              \
    snprintf(args, sizeof args, args_fmt, op, kb_root);                     \
    doc = same_as_command_in(name, fn, ctx, req, bin, args, status, op);   \
  } while (0)
  STEP("check", opdev_check, "{\"op_dir\": \"%s\"}", "check '%s' --kb-root '%s'", OPDEV_OK);
  EXPECT(doc && strstr(doc, "\"status\": \"clean\""));
  opdev_string_free(doc);
  STEP("plan", opdev_plan, "{\"op_dir\": \"%s\"}", "plan '%s' %.0s", OPDEV_OK);
  EXPECT(doc && strstr(doc, "\"mode\": \"L0\""));
  opdev_string_free(doc);
  STEP("plan --module-k two", opdev_plan, "{\"op_dir\": \"%s\", \"module_k\": \"two\"}",
       "plan '%s' --module-k two %.0s", OPDEV_FINDINGS);
  opdev_string_free(doc);
  STEP("gen", opdev_gen, "{\"op_dir\": \"%s\"}", "gen '%s' %.0s", OPDEV_OK);
  EXPECT(doc && strstr(doc, "test_softmax.py"));
  opdev_string_free(doc);
  STEP("budget", opdev_budget, "{\"path\": \"%s\"}", "budget '%s' %.0s", OPDEV_OK);
  opdev_string_free(doc);
  STEP("selfcheck", opdev_selfcheck, "{\"op_dir\": \"%s\"}", "selfcheck '%s' --kb-root '%s'",
       ANY_VERDICT);
  opdev_string_free(doc);
  /* The DESIGN §8 runner: its document is deterministic (the test file's run on the CPU
   * device reports wall times) and it leaves the inputs and goldens the sim step uses. */
  STEP("run", opdev_run, "{\"op_dir\": \"%s\", \"backend\": \"sim\", \"design_cases\": true}",
       "run '%s' --backend sim --design-cases %.0s", ANY_VERDICT);
  EXPECT(doc && strstr(doc, "\"cases\": ["));
  opdev_string_free(doc);
  STEP("lint", opdev_lint, "{\"file\": [\"%s/test_softmax.py\"]}", "lint '%s/test_softmax.py' %.0s",
       OPDEV_OK);
  EXPECT(doc && strstr(doc, "\"status\": \"clean\""));
  opdev_string_free(doc);
  /* sim on the inputs the run wrote for one case; its output is compared below against the
   * CPU golden the run computed, as files and with a tile. */
  snprintf(req, sizeof req,
           "{\"file\": \"%s/test_softmax.py\", \"entry\": \"softmax_wrapper\", \"in\": "
           "[\"%s/reports/opdev/run/sim/test_softmax_col_tail.in0.npy\"], \"out_dir\": "
           "\"%s/simout\"}",
           op, op, ws);
  snprintf(args, sizeof args,
           "sim '%s/test_softmax.py' --entry softmax_wrapper --in "
           "'%s/reports/opdev/run/sim/test_softmax_col_tail.in0.npy' --out-dir '%s/simout'",
           op, op, ws);
  doc = same_as_command("sim", opdev_sim, ctx, req, bin, args, OPDEV_OK);
  EXPECT(doc && strstr(doc, "\"clean\": true"));
  opdev_string_free(doc);
  snprintf(cmd, sizeof cmd, "cp '%s'/simout/*.npy '%s/actual.npy'", ws, ws);
  EXPECT(system(cmd) == 0);
  {
    char golden[1200], actual[1200];
    snprintf(golden, sizeof golden, "%s/reports/opdev/run/sim/test_softmax_col_tail.golden.0.npy", op);
    snprintf(actual, sizeof actual, "%s/actual.npy", ws);
    snprintf(req, sizeof req, "{\"pairs\": [[\"%s\", \"%s\"]], \"tile\": [1, 64]}", actual, golden);
    snprintf(args, sizeof args, "compare '%s' '%s' --tile 1,64", actual, golden);
    doc = same_as_command("compare", opdev_compare, ctx, req, bin, args, ANY_VERDICT);
    EXPECT(doc && strstr(doc, "\"verdict\": "));
    opdev_string_free(doc);
    snprintf(req, sizeof req, "{\"pairs\": [[\"%s\", \"%s\"]], \"tile\": \"16\"}", actual, golden);
    snprintf(args, sizeof args, "compare '%s' '%s' --tile 16", actual, golden);
    doc = same_as_command("compare --tile 16", opdev_compare, ctx, req, bin, args, OPDEV_ERROR);
    EXPECT(strstr(opdev_last_error(ctx), "--tile: expected two positive integers R,C, got '16'") != NULL);
    opdev_string_free(doc);
  }
  STEP("usage generate", opdev_usage_generate, "{\"op_dir\": \"%s\"}",
       "usage generate '%s' --kb-root '%s'", OPDEV_OK);
  opdev_string_free(doc);
  STEP("usage check", opdev_usage_check, "{\"op_dir\": \"%s\"}", "usage check '%s' --kb-root '%s'",
       OPDEV_OK);
  opdev_string_free(doc);
  /* The DESIGN §8 runner: the test file's combined output (case output_line) depends on how its
   * stdout and stderr interleave, so two runs of it are not byte-identical documents. */
  STEP("stage", opdev_stage, "{\"op_dir\": \"%s\", \"design_cases\": true}",
       "stage '%s' --design-cases --kb-root '%s'", ANY_VERDICT);
  EXPECT(doc && strstr(doc, "\"schema\": \"opdev.stage-report/1\""));
  opdev_string_free(doc);
#undef STEP
  opdev_context_free(ctx);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", ws);
  EXPECT(system(cmd) == 0);
}

/* Several contexts on several threads at once: check and budget of examples/softmax (read
 * only) and compare_buffers, every document equal to the one computed on one thread. */
static char g_check_request[4096], g_budget_request[4096];
static char *g_check_doc, *g_budget_doc;

static void *thread_main(void *arg) {
  int id = *(int *)arg;
  char options[2048];
  snprintf(options, sizeof options, "{\"target\": \"%s\"}", id % 2 ? "a3" : "a5");
  opdev_context *ctx = opdev_context_new(id % 2 ? options : NULL);
  float a[1024], g[1024];
  for (int i = 0; i < 1024; ++i) a[i] = g[i] = (float)(i % 97) / 7.0f;
  if (id == 3) a[5] += 10.0f; /* one element far off: max_abs_error over the limit */
  int64_t shape[1] = {1024};
  int bad = 0;
  for (int round = 0; round < 8; ++round) {
    char *out = NULL;
    int status = opdev_compare_buffers(ctx, a, "float32", g, "float32", shape, 1, NULL, &out);
    if (status != (id == 3 ? OPDEV_FINDINGS : OPDEV_OK)) ++bad;
    opdev_string_free(out);
    if (id % 2 == 0) { /* target a5, as the one-thread documents */
      if (opdev_check(ctx, g_check_request, &out) != OPDEV_OK || strcmp(out, g_check_doc) != 0) ++bad;
      opdev_string_free(out);
      if (opdev_budget(ctx, g_budget_request, &out) != OPDEV_OK || strcmp(out, g_budget_doc) != 0) ++bad;
      opdev_string_free(out);
    } else {
      if (opdev_check(ctx, g_check_request, &out) != OPDEV_OK || !strstr(out, "\"target\": \"a3\"")) ++bad;
      opdev_string_free(out);
    }
  }
  opdev_context_free(ctx);
  return (void *)(long)bad;
}

static void test_threads(const char *source_dir, const char *kb_root) {
  snprintf(g_check_request, sizeof g_check_request,
           "{\"op_dir\": \"%s/examples/softmax\", \"kb_root\": \"%s\"}", source_dir, kb_root);
  snprintf(g_budget_request, sizeof g_budget_request, "{\"path\": \"%s/examples/softmax\"}", source_dir);
  opdev_context *ctx = opdev_context_new(NULL);
  EXPECT(opdev_check(ctx, g_check_request, &g_check_doc) == OPDEV_OK);
  EXPECT(opdev_budget(ctx, g_budget_request, &g_budget_doc) == OPDEV_OK);
  opdev_context_free(ctx);
  if (!g_check_doc || !g_budget_doc) return;
  pthread_t threads[6];
  int ids[6];
  for (int i = 0; i < 6; ++i) {
    ids[i] = i;
    pthread_create(&threads[i], NULL, thread_main, &ids[i]);
  }
  for (int i = 0; i < 6; ++i) {
    void *bad = NULL;
    pthread_join(threads[i], &bad);
    EXPECT((long)bad == 0);
  }
  opdev_string_free(g_check_doc);
  opdev_string_free(g_budget_doc);
}

/* opdev_launch: a tile kernel written to a temporary file, launched on 2 simulated cores
 * with C buffers; the result lands in the output buffer; an out-of-range store is a
 * finding with its line; bad tensors are call errors. Its make_tile tiles carry their
 * MTE2 -> V and V -> MTE3 syncs; without them the pipe model (on unless "pipe_sync": false)
 * reports the race. */
#define LAUNCH_KERNEL_HEAD \
    "import pypto_pro.language as pl\n" \
    "T = 16\n" \
    "@pl.jit\n" \
    "def add_kernel(x: pl.Tensor[[pl.DYNAMIC, T], pl.DT_FP32], y: pl.Tensor[[pl.DYNAMIC, T], pl.DT_FP32],\n" \
    "               z: pl.Tensor[[pl.DYNAMIC, T], pl.DT_FP32], row_shift: pl.DT_INT64):\n" \
    "    tt = pl.TileType(shape=[T, T], dtype=pl.DT_FP32, target_memory=pl.MemorySpace.Vec)\n" \
    "    a = pl.make_tile(tt, addr=0, size=T * T * 4)\n" \
    "    b = pl.make_tile(tt, addr=T * T * 4, size=T * T * 4)\n" \
    "    with pl.section_vector():\n" \
    "        i = pl.get_block_idx()\n" \
    "        pl.load_tile(a, x, [i, 0])\n" \
    "        pl.load_tile(b, y, [i, 0])\n"
static const char *kLaunchKernel =
    LAUNCH_KERNEL_HEAD
    "        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
    "        pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)\n"
    "        pl.add(a, a, b)\n"
    "        pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
    "        pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0)\n"
    "        pl.store(z, a, [i * T + row_shift, 0])\n";
static const char *kLaunchKernelNoSync =
    LAUNCH_KERNEL_HEAD
    "        pl.add(a, a, b)\n"
    "        pl.store(z, a, [i * T + row_shift, 0])\n";

static void test_launch_pipes(void) {
  char path[] = "/tmp/opdev_abi_pipes_XXXXXX.py";
  int fd = mkstemps(path, 3);
  EXPECT(fd >= 0);
  if (fd < 0) return;
  FILE *f = fdopen(fd, "w");
  fputs(kLaunchKernelNoSync, f);
  fclose(f);
  enum { R = 32, C = 16 };
  static float x[R * C], y[R * C], z[R * C];
  for (int i = 0; i < R * C; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f;
    z[i] = -1.0f;
  }
  int64_t shape[2] = {R, C};
  opdev_tensor t[3] = {{x, "float32", shape, 2, "x"}, {y, "float32", shape, 2, "y"},
                       {z, "float32", shape, 2, "z"}};
  const char *tail = "\"block_dim\": 2, \"args\": [{\"tensor\": 0}, {\"tensor\": 1}, {\"tensor\": 2}, 0]";
  char req[1024];
  opdev_context *ctx = opdev_context_new(NULL);
  char *out = NULL;
  /* The default: the pipe model is on, the unsynchronised load -> add is a race at line 13. */
  snprintf(req, sizeof req, "{\"file\": \"%s\", \"kernel\": \"add_kernel\", %s}", path, tail);
  EXPECT(opdev_launch(ctx, req, t, 3, &out) == OPDEV_FINDINGS);
  EXPECT(out && strstr(out, "\"code\": \"SIM-PIPE-RACE\"") != NULL);
  EXPECT(out && strstr(out, "\"line\": 13") != NULL);
  opdev_string_free(out);
  /* "pipe_sync": false: one core's pipes run in program order, clean and exact. */
  snprintf(req, sizeof req, "{\"file\": \"%s\", \"kernel\": \"add_kernel\", \"pipe_sync\": false, %s}", path,
           tail);
  EXPECT(opdev_launch(ctx, req, t, 3, &out) == OPDEV_OK);
  EXPECT(out && strstr(out, "\"clean\": true") != NULL);
  int exact = 1;
  for (int i = 0; i < R * C; ++i) exact &= z[i] == (float)i + 0.5f;
  EXPECT(exact);
  opdev_string_free(out);
  opdev_context_free(ctx);
  remove(path);
}

static void test_launch(void) {
  char path[] = "/tmp/opdev_abi_launch_XXXXXX.py";
  int fd = mkstemps(path, 3);
  EXPECT(fd >= 0);
  if (fd < 0) return;
  FILE *f = fdopen(fd, "w");
  fputs(kLaunchKernel, f);
  fclose(f);
  enum { R = 32, C = 16 };
  static float x[R * C], y[R * C], z[R * C];
  for (int i = 0; i < R * C; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f;
    z[i] = -1.0f;
  }
  int64_t shape[2] = {R, C};
  opdev_tensor t[3] = {{x, "float32", shape, 2, "x"}, {y, "float32", shape, 2, "y"},
                       {z, "float32", shape, 2, "z"}};
  char req[1024];
  snprintf(req, sizeof req,
           "{\"file\": \"%s\", \"kernel\": \"add_kernel\", \"block_dim\": 2, "
           "\"args\": [{\"tensor\": 0}, {\"tensor\": 1}, {\"tensor\": 2}, 0]}", path);
  opdev_context *ctx = opdev_context_new(NULL);
  char *out = NULL;
  EXPECT(opdev_launch(ctx, req, t, 3, &out) == OPDEV_OK);
  EXPECT(out && strstr(out, "\"clean\": true") != NULL);
  EXPECT(out && strstr(out, "\"written\": [\n    2\n  ]") != NULL);
  int exact = 1;
  for (int i = 0; i < R * C; ++i) exact &= z[i] == (float)i + 0.5f;
  EXPECT(exact);
  opdev_string_free(out);
  /* Shifted by one row: core 1 stores one row past z (line 18 of the file). */
  snprintf(req, sizeof req,
           "{\"file\": \"%s\", \"kernel\": \"add_kernel\", \"block_dim\": 2, "
           "\"args\": [{\"tensor\": 0}, {\"tensor\": 1}, {\"tensor\": 2}, 1]}", path);
  EXPECT(opdev_launch(ctx, req, t, 3, &out) == OPDEV_FINDINGS);
  EXPECT(out && strstr(out, "\"code\": \"SIM-GM-OOB\"") != NULL);
  EXPECT(out && strstr(out, "\"line\": 18") != NULL);
  EXPECT(out && strstr(out, "\"cache_hit\": true") != NULL);
  opdev_string_free(out);
  /* Call errors: an unknown dtype, a NULL buffer, an unknown kernel. */
  opdev_tensor bad = {x, "complex64", shape, 2, "x"};
  EXPECT(opdev_launch(ctx, req, &bad, 1, &out) == OPDEV_ERROR);
  EXPECT(strstr(opdev_last_error(ctx), "complex64") != NULL);
  opdev_string_free(out);
  opdev_tensor null_data = {NULL, "float32", shape, 2, "x"};
  EXPECT(opdev_launch(ctx, req, &null_data, 1, &out) == OPDEV_ERROR);
  opdev_string_free(out);
  snprintf(req, sizeof req, "{\"file\": \"%s\", \"kernel\": \"nope\"}", path);
  EXPECT(opdev_launch(ctx, req, t, 3, &out) == OPDEV_ERROR);
  EXPECT(strstr(opdev_last_error(ctx), "add_kernel") != NULL);
  opdev_string_free(out);
  opdev_context_free(ctx);
  remove(path);
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "--quick") != 0)) {
    fprintf(stderr, "usage: abi_test OPDEV_BIN SOURCE_DIR KB_ROOT [--quick]\n");
    return 2;
  }
  test_versions();
  test_context_options();
  test_request_errors();
  test_compare_buffers();
  test_launch();
  test_launch_pipes();
  test_check_matches_command(argv[1], argv[2], argv[3]);
  if (argc == 4) test_round_matches_command(argv[1], argv[2], argv[3]);
  test_threads(argv[2], argv[3]);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
