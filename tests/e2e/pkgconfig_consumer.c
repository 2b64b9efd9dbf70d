/* A C program built only through `pkg-config --cflags --libs opdev` from an installed (and
 * moved) prefix: prints the library's version and ABI number, then runs one compare step on
 * in-memory buffers so the link is exercised beyond a symbol lookup (exit 0 only on PASS). */
#include "opdev.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  printf("%s %d\n", opdev_version(), opdev_abi_version());
  opdev_context *ctx = opdev_context_new(NULL);
  if (!ctx) return 3;
  float a[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  char *doc = NULL;
  int st = opdev_compare_buffers(ctx, a, "float32", a, "float32", shape, 1, NULL, &doc);
  int ok = st == OPDEV_OK && doc && strstr(doc, "PASS") != NULL;
  opdev_string_free(doc);
  opdev_context_free(ctx);
  return ok ? 0 : 4;
}
