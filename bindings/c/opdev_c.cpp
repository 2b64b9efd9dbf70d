// The C ABI of opdev (opdev.h) over the library's uniform steps (opdev/steps/step.h): each
// entry point parses the request and calls RunStep, the same call the opdev command makes,
// so the documents are byte-identical. Every entry point is an exception barrier; results
// are malloc'ed UTF-8 JSON strings.
#include "opdev.h"

#include "opdev/precision/tensor.h"
#include "opdev/steps/compare_step.h"
#include "opdev/steps/launch_step.h"
#include "opdev/steps/step.h"
#include "opdev/support/dtype.h"
#include "opdev/support/json_print.h"
#include "opdev/version.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

struct opdev_context {
  opdev::steps::StepContext step;
  std::string last_error;
  opdev_log_fn log_fn = nullptr;
  void* log_user = nullptr;
  // Serialises calls on one context (the header allows one thread per context; this makes
  // accidental sharing safe rather than undefined).
  std::mutex mu;
};

namespace {

thread_local std::string g_new_context_error;

char* Dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

// Parses a request: NULL or "" is {}, anything else must be a JSON object.
bool ParseRequest(const char* json, boost::json::object* out, std::string* error) {
  if (!json || !*json) {
    *out = {};
    return true;
  }
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(json, ec);
  if (ec) {
    *error = "request is not valid JSON: " + ec.message();
    return false;
  }
  if (!v.is_object()) {
    *error = "request must be a JSON object";
    return false;
  }
  *out = std::move(v.as_object());
  return true;
}

int Finish(opdev_context* ctx, const opdev::steps::StepResult& r, char** result) {
  if (result) *result = Dup(opdev::PrettyJson(r.document));
  if (r.status == opdev::steps::kStatusError) {
    const auto* o = r.document.if_object();
    const auto* e = o ? o->if_contains("error") : nullptr;
    ctx->last_error = e && e->is_string() ? std::string(e->as_string()) : r.text_err;
  } else {
    ctx->last_error.clear();
  }
  return r.status;
}

int Fail(opdev_context* ctx, const std::string& message, char** result) {
  return Finish(ctx, opdev::steps::StepResult::Error(message), result);
}

int Run(opdev_context* ctx, const char* step, const char* request_json, char** result) {
  if (result) *result = nullptr;
  if (!ctx) return OPDEV_ERROR;
  std::lock_guard<std::mutex> lock(ctx->mu);
  try {
    boost::json::object request;
    std::string error;
    if (!ParseRequest(request_json, &request, &error)) return Fail(ctx, error, result);
    return Finish(ctx, opdev::steps::RunStep(step, ctx->step, request), result);
  } catch (const std::exception& e) {
    return Fail(ctx, std::string("internal error: ") + e.what(), result);
  } catch (...) {
    return Fail(ctx, "internal error", result);
  }
}

}  // namespace

extern "C" {

static_assert(OPDEV_ABI_VERSION == opdev::kAbiVersion, "opdev.h and opdev/version.h disagree on the ABI number");

const char* opdev_version(void) { return opdev::VersionString(); }

int opdev_abi_version(void) { return OPDEV_ABI_VERSION; }

opdev_context* opdev_context_new(const char* options_json) {
  try {
    boost::json::object options;
    std::string error;
    if (!ParseRequest(options_json, &options, &error)) {
      g_new_context_error = "options: " + error;
      return nullptr;
    }
    auto* ctx = new opdev_context();
    ctx->step.python = "/usr/bin/python3";  // the header's documented default
    for (const auto& kv : options) {
      std::string key(kv.key());
      if (!kv.value().is_string()) {
        g_new_context_error = "options: '" + key + "' must be a string";
        delete ctx;
        return nullptr;
      }
      std::string value(kv.value().as_string());
      if (key == "target") {
        auto t = opdev::ParseTarget(value);
        if (!t) {
          g_new_context_error = "options: unknown target '" + value + "' (expected a5 or a3)";
          delete ctx;
          return nullptr;
        }
        ctx->step.target = *t;
      } else if (key == "kb_root") {
        ctx->step.kb_root = value;
      } else if (key == "python") {
        ctx->step.python = value;
      } else {
        g_new_context_error = "options: unknown key '" + key + "' (expected target, kb_root, python)";
        delete ctx;
        return nullptr;
      }
    }
    ctx->step.log = [ctx](int level, const std::string& message) {
      if (ctx->log_fn) ctx->log_fn(ctx->log_user, level, message.c_str());
    };
    g_new_context_error.clear();
    return ctx;
  } catch (const std::exception& e) {
    g_new_context_error = std::string("internal error: ") + e.what();
    return nullptr;
  } catch (...) {
    g_new_context_error = "internal error";
    return nullptr;
  }
}

void opdev_context_free(opdev_context* ctx) { delete ctx; }

void opdev_set_log_callback(opdev_context* ctx, opdev_log_fn fn, void* user_data) {
  if (!ctx) return;
  std::lock_guard<std::mutex> lock(ctx->mu);
  ctx->log_fn = fn;
  ctx->log_user = user_data;
}

const char* opdev_last_error(const opdev_context* ctx) {
  return ctx ? ctx->last_error.c_str() : g_new_context_error.c_str();
}

void opdev_string_free(char* s) { std::free(s); }

int opdev_check(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "check", req, out); }
int opdev_plan(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "plan", req, out); }
int opdev_gen(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "gen", req, out); }
int opdev_budget(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "budget", req, out); }
int opdev_lint(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "lint", req, out); }
int opdev_sim(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "sim", req, out); }
int opdev_run(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "run", req, out); }
int opdev_compare(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "compare", req, out); }
int opdev_usage_generate(opdev_context* ctx, const char* req, char** out) {
  return Run(ctx, "usage-generate", req, out);
}
int opdev_usage_check(opdev_context* ctx, const char* req, char** out) {
  return Run(ctx, "usage-check", req, out);
}
int opdev_selfcheck(opdev_context* ctx, const char* req, char** out) {
  return Run(ctx, "selfcheck", req, out);
}
int opdev_stage(opdev_context* ctx, const char* req, char** out) { return Run(ctx, "stage", req, out); }

int opdev_compare_buffers(opdev_context* ctx, const void* actual, const char* actual_dtype,
                          const void* golden, const char* golden_dtype, const int64_t* shape,
                          size_t ndim, const char* options_json, char** result) {
  if (result) *result = nullptr;
  if (!ctx) return OPDEV_ERROR;
  std::lock_guard<std::mutex> lock(ctx->mu);
  try {
    boost::json::object options;
    std::string error;
    if (!ParseRequest(options_json, &options, &error)) return Fail(ctx, error, result);
    auto a_dtype = opdev::ParseDType(actual_dtype ? actual_dtype : "");
    auto g_dtype = opdev::ParseDType(golden_dtype ? golden_dtype : "");
    if (!a_dtype) return Fail(ctx, std::string("unknown actual dtype '") + (actual_dtype ? actual_dtype : "") + "'", result);
    if (!g_dtype) return Fail(ctx, std::string("unknown golden dtype '") + (golden_dtype ? golden_dtype : "") + "'", result);
    if (ndim > 0 && !shape) return Fail(ctx, "shape is NULL but ndim > 0", result);
    opdev::precision::Shape dims(shape, shape + ndim);
    int64_t numel = opdev::precision::ShapeNumel(dims);
    if (numel < 0) return Fail(ctx, "invalid shape (negative dimension or overflow)", result);
    if (numel > 0 && (!actual || !golden)) return Fail(ctx, "a data pointer is NULL", result);
    static const std::byte kEmpty[8] = {};
    auto view = [&](const void* p, opdev::DType t) {
      const std::byte* data = p ? static_cast<const std::byte*>(p) : kEmpty;
      return opdev::precision::Tensor::View(t, dims, nullptr, data);  // borrowed, not copied
    };
    std::vector<std::optional<opdev::precision::Tensor>> a{view(actual, *a_dtype)};
    std::vector<std::optional<opdev::precision::Tensor>> g{view(golden, *g_dtype)};
    return Finish(ctx, opdev::steps::CompareTensors(a, g, options), result);
  } catch (const std::exception& e) {
    return Fail(ctx, std::string("internal error: ") + e.what(), result);
  } catch (...) {
    return Fail(ctx, "internal error", result);
  }
}

int opdev_launch(opdev_context* ctx, const char* request_json, const opdev_tensor* tensors,
                 size_t ntensors, char** result) {
  if (result) *result = nullptr;
  if (!ctx) return OPDEV_ERROR;
  std::lock_guard<std::mutex> lock(ctx->mu);
  try {
    boost::json::object request;
    std::string error;
    if (!ParseRequest(request_json, &request, &error)) return Fail(ctx, error, result);
    if (ntensors > 0 && !tensors) return Fail(ctx, "tensors is NULL but ntensors > 0", result);
    std::vector<opdev::sim::ExternalTensor> ext;
    for (size_t i = 0; i < ntensors; ++i) {
      const opdev_tensor& t = tensors[i];
      std::string name = t.name ? t.name : "tensor" + std::to_string(i);
      auto dtype = opdev::ParseDType(t.dtype ? t.dtype : "");
      if (!dtype)
        return Fail(ctx, "tensor " + std::to_string(i) + " ('" + name + "'): unknown dtype '" +
                             (t.dtype ? t.dtype : "") + "'", result);
      if (t.ndim > 0 && !t.shape) return Fail(ctx, "tensor " + std::to_string(i) + ": shape is NULL but ndim > 0", result);
      opdev::precision::Shape dims(t.shape, t.shape + t.ndim);
      int64_t numel = opdev::precision::ShapeNumel(dims);
      if (numel < 0) return Fail(ctx, "tensor " + std::to_string(i) + ": invalid shape (negative dimension or overflow)", result);
      if (numel > 0 && !t.data) return Fail(ctx, "tensor " + std::to_string(i) + ": data is NULL", result);
      ext.push_back({name, *dtype, dims, t.data});
    }
    return Finish(ctx, opdev::steps::RunLaunch(ctx->step, request, ext), result);
  } catch (const std::exception& e) {
    return Fail(ctx, std::string("internal error: ") + e.what(), result);
  } catch (...) {
    return Fail(ctx, "internal error", result);
  }
}

}  // extern "C"
