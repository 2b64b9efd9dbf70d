/* Tests of the C ABI (opdev.h) from C: versions, context options, errors, compare on
 * in-memory buffers, check on the bundled example compared byte-for-byte with the command's
 * --json output, and several contexts used concurrently on several threads. */
#include "opdev.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static char *read_command(const char *cmd) {
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
  pclose(p);
  return buf;
}

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

static void *thread_main(void *arg) {
  int id = *(int *)arg;
  opdev_context *ctx = opdev_context_new(id % 2 ? "{\"target\": \"a3\"}" : NULL);
  float a[1024], g[1024];
  for (int i = 0; i < 1024; ++i) a[i] = g[i] = (float)(i % 97) / 7.0f;
  if (id == 3) a[5] += 10.0f; /* one element far off: max_abs_error over the limit */
  int64_t shape[1] = {1024};
  int bad = 0;
  for (int round = 0; round < 25; ++round) {
    char *out = NULL;
    int status = opdev_compare_buffers(ctx, a, "float32", g, "float32", shape, 1, NULL, &out);
    if (status != (id == 3 ? OPDEV_FINDINGS : OPDEV_OK)) ++bad;
    opdev_string_free(out);
  }
  opdev_context_free(ctx);
  return (void *)(long)bad;
}

static void test_threads(void) {
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
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: abi_test OPDEV_BIN SOURCE_DIR KB_ROOT\n");
    return 2;
  }
  test_versions();
  test_context_options();
  test_request_errors();
  test_compare_buffers();
  test_check_matches_command(argv[1], argv[2], argv[3]);
  test_threads();
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures == 0 ? 0 : 1;
}
