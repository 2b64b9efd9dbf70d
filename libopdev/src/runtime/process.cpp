// Child-process execution: posix_spawn in a new process group, output pumped through pipes
// into files (so the no-output watchdog sees every byte), timeouts that kill the group.
#include "opdev/runtime/process.h"

#include "absl/strings/str_cat.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace opdev::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Owns a file descriptor.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

std::vector<std::string> BuildEnvironment(const ProcessSpec& spec) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& name : spec.unset_env) vars.erase(name);
  for (const auto& [k, v] : spec.env) vars[k] = v;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.push_back(k + "=" + v);
  return out;
}

class OutputSink {
 public:
  absl::Status Open(const std::string& path) {
    if (path.empty()) return absl::OkStatus();
    out_.open(path, std::ios::binary | std::ios::trunc);
    if (!out_) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot create"));
    return absl::OkStatus();
  }
  void Write(std::string_view bytes) {
    if (out_.is_open()) {
      out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      out_.flush();
    }
  }

 private:
  std::ofstream out_;
};

}  // namespace

std::string_view TerminationName(Termination t) {
  switch (t) {
    case Termination::kExited: return "exited";
    case Termination::kSignaled: return "signaled";
    case Termination::kTimedOut: return "timed_out";
    case Termination::kIdleKilled: return "idle_killed";
    case Termination::kSpawnFailed: return "spawn_failed";
  }
  return "unknown";
}

std::string RenderCommand(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      out += a;
    } else {
      out += '\'';
      for (char c : a) {
        if (c == '\'') out += "'\\''";
        else out += c;
      }
      out += '\'';
    }
  }
  return out;
}

absl::StatusOr<ProcessResult> RunProcess(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty())
    return absl::InvalidArgumentError("RunProcess: empty argv");

  OutputSink out_file, err_file, all_file;
  if (auto s = out_file.Open(spec.stdout_path); !s.ok()) return s;
  if (auto s = err_file.Open(spec.stderr_path); !s.ok()) return s;
  if (auto s = all_file.Open(spec.combined_path); !s.ok()) return s;

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  Fd out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0)
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  Fd err_r(err_pipe[0]), err_w(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty_mask, default_sigs;
  sigemptyset(&empty_mask);
  sigemptyset(&default_sigs);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&default_sigs, s);
  posix_spawnattr_setsigmask(&attr, &empty_mask);
  posix_spawnattr_setsigdefault(&attr, &default_sigs);
  posix_spawnattr_setpgroup(&attr, 0);  // the child leads a new process group
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> env_strings = BuildEnvironment(spec);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = spec.argv;
  std::vector<char*> argv;
  for (auto& a : argv_copy) argv.push_back(a.data());
  argv.push_back(nullptr);

  ProcessResult result;
  const auto start = Clock::now();
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  out_w.Close();
  err_w.Close();
  if (rc != 0) {
    result.termination = Termination::kSpawnFailed;
    result.spawn_error = absl::StrCat(spec.argv[0], ": ", std::strerror(rc));
    if (!spec.cwd.empty() && rc == ENOENT)
      absl::StrAppend(&result.spawn_error, " (working directory ", spec.cwd, ")");
    return result;
  }

  auto last_output = Clock::now();
  bool child_done = false;
  int status = 0;
  std::optional<Clock::time_point> child_exit_time;
  std::optional<Clock::time_point> term_sent;
  bool kill_sent = false;
  Termination killed_for = Termination::kExited;

  auto send = [&](int sig) { ::killpg(pid, sig); };
  // The combined log takes whole lines of each stream: a line one stream writes in pieces (an
  // unbuffered print, a flush mid-line) stays whole when the other stream writes meanwhile.
  std::string pending[2];
  auto to_combined = [&](std::string_view text) {
    all_file.Write(text);
    result.combined_text.append(text);
  };
  auto pump = [&](Fd& fd, bool is_err) {
    char buf[65536];
    ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n > 0) {
      std::string_view chunk(buf, static_cast<size_t>(n));
      (is_err ? err_file : out_file).Write(chunk);
      (is_err ? result.stderr_text : result.stdout_text).append(chunk);
      std::string& part = pending[is_err ? 1 : 0];
      const size_t nl = chunk.rfind('\n');
      if (nl == std::string_view::npos) {
        part.append(chunk);
      } else {
        part.append(chunk.substr(0, nl + 1));
        to_combined(part);
        part.assign(chunk.substr(nl + 1));
      }
      if (spec.on_output) spec.on_output(is_err, chunk);
      last_output = Clock::now();
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      fd.Close();
    }
  };

  while (true) {
    if (!child_done) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        child_done = true;
        child_exit_time = Clock::now();
      }
    }
    const auto now = Clock::now();
    bool pipes_open = out_r.fd >= 0 || err_r.fd >= 0;
    if (child_done && !pipes_open) break;
    if (child_done && pipes_open && now - *child_exit_time > std::chrono::seconds(1)) {
      // The leader exited but descendants still hold the pipes: end the whole group.
      send(SIGKILL);
      out_r.Close();
      err_r.Close();
      break;
    }
    if (!term_sent) {
      if (spec.timeout_seconds > 0 && Seconds(now - start) >= spec.timeout_seconds) {
        killed_for = Termination::kTimedOut;
      } else if (spec.idle_timeout_seconds > 0 &&
                 Seconds(now - last_output) >= spec.idle_timeout_seconds) {
        killed_for = Termination::kIdleKilled;
      }
      if (killed_for != Termination::kExited) {
        result.seconds_since_last_output = Seconds(now - last_output);
        send(SIGTERM);
        term_sent = now;
      }
    } else if (!kill_sent && Seconds(now - *term_sent) >= spec.kill_grace_seconds) {
      send(SIGKILL);
      kill_sent = true;
    }
    struct pollfd fds[2];
    int nfds = 0;
    int out_idx = -1, err_idx = -1;
    if (out_r.fd >= 0) { fds[nfds] = {out_r.fd, POLLIN, 0}; out_idx = nfds++; }
    if (err_r.fd >= 0) { fds[nfds] = {err_r.fd, POLLIN, 0}; err_idx = nfds++; }
    int pr = ::poll(fds, static_cast<nfds_t>(nfds), 50);
    if (pr > 0) {
      if (out_idx >= 0 && (fds[out_idx].revents & (POLLIN | POLLHUP | POLLERR))) pump(out_r, false);
      if (err_idx >= 0 && (fds[err_idx].revents & (POLLIN | POLLHUP | POLLERR))) pump(err_r, true);
    }
  }
  for (const std::string& part : pending) to_combined(part);  // unterminated last lines
  if (!child_done) {
    ::waitpid(pid, &status, 0);
  }
  // Whatever is left of the group (daemonised helpers) goes too.
  ::killpg(pid, SIGKILL);

  const auto end = Clock::now();
  result.wall_seconds = Seconds(end - start);
  if (killed_for == Termination::kExited)
    result.seconds_since_last_output = Seconds(end - last_output);
  if (killed_for != Termination::kExited) {
    result.termination = killed_for;
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  } else if (WIFEXITED(status)) {
    result.termination = Termination::kExited;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.termination = Termination::kSignaled;
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace opdev::runtime
