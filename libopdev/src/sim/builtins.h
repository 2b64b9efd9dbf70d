// Shared helpers of the builtin implementations (builtins_*.cpp): argument access by position
// or keyword, conversions of values to tiles, tensors, dtypes and enum members, and the
// registration entry points of each builtin family.
#pragma once

#include "interpreter.h"
#include "opdev/sim/fixpipe.h"

#include <map>
#include <string>
#include <string_view>

namespace opdev::sim {

class Args {
 public:
  Args(Interp& in, const XNode& call, const std::vector<Value>& pos, const Kwargs& kw, const char* fname)
      : in_(in), call_(call), pos_(pos), kw_(kw), fname_(fname) {}

  // The argument at position i, else the keyword `name`; nullptr when neither is given.
  const Value* Get(size_t i, std::string_view name) const {
    if (i < pos_.size()) return &pos_[i];
    for (auto& [k, v] : kw_)
      if (k == name) return &v;
    return nullptr;
  }
  // The same, required (a missing one fails the call).
  const Value& Req(size_t i, std::string_view name) const {
    const Value* v = Get(i, name);
    if (!v) Missing(name);
    return *v;
  }
  int line() const { return call_.line; }
  size_t npos() const { return pos_.size(); }
  const Value& pos(size_t i) const { return pos_[i]; }
  Interp& in() const { return in_; }
  const char* fname() const { return fname_; }

  int64_t Int(size_t i, std::string_view name) const;
  double Num(size_t i, std::string_view name) const;
  Tile& TileArg(size_t i, std::string_view name) const;
  std::shared_ptr<Tile> TilePtr(size_t i, std::string_view name) const;
  GmTensor& TensorArg(size_t i, std::string_view name) const;
  const VReg& Reg(size_t i, std::string_view name) const {
    const Value& v = Req(i, name);
    if (v.kind != VK::kVReg) NotA(name, "a vector register", v);
    return v.As<VReg>();
  }
  const MaskReg& Mask(size_t i, std::string_view name) const {
    const Value& v = Req(i, name);
    if (v.kind != VK::kMask) NotA(name, "a mask register", v);
    return v.As<MaskReg>();
  }
  DType DTypeArg(size_t i, std::string_view name, DType dflt) const;
  // Enum member name without the class ("ALL", "ZERO"); "" when absent/None.
  std::string EnumArg(size_t i, std::string_view name) const;
  // The same as a view into the argument (valid during the builtin call).
  std::string_view EnumName(size_t i, std::string_view name) const;
  // An integer or a list of integers (offsets, shapes).
  IndexList IntList(size_t i, std::string_view name) const;

  [[noreturn]] void Fail(const std::string& msg) const;

 private:
  [[noreturn]] void Missing(std::string_view name) const;
  // "argument 'name' must be <what>, got <kind>".
  [[noreturn]] void NotA(std::string_view name, const char* what, const Value& v) const;

  Interp& in_;
  const XNode& call_;
  const std::vector<Value>& pos_;
  const Kwargs& kw_;
  const char* fname_;
};

using BuiltinTable = std::map<std::string, BuiltinFn>;
void RegisterTileBuiltins(BuiltinTable& t);  // pl.* (tiles, data movement, tile ops, system)
void RegisterVfBuiltins(BuiltinTable& t);    // vf.*
void RegisterHostBuiltins(BuiltinTable& t);  // Python builtins, torch, platform
void RegisterCubeBuiltins(BuiltinTable& t);  // pl.move/insert/matmul*/set_mm_layout_transform
void RegisterSyncBuiltins(BuiltinTable& t);  // pl.system.set_cross_core/wait_cross_core
void RegisterScalarBuiltins(BuiltinTable& t);  // pl.getval/pl.setval
void RegisterAggregateBuiltins(BuiltinTable& t);  // pl.struct/struct_array/make_tuple
void RegisterSimtBuiltins(BuiltinTable& t);       // pl.simt.* (simt.cpp)
void RegisterGmViewBuiltins(BuiltinTable& t);  // pl.make_tensor
void RegisterPipeBuiltins(BuiltinTable& t);  // pl.system.sync_src/dst, mutex_*, bar_*, sync_all, dump_data
// Bound forms (program.h, FindBoundBuiltin): the register operations of vf.* that a VF body
// repeats in its loops.
using BoundTable = std::map<std::string, BoundBuiltin>;
void RegisterVfBoundBuiltins(BoundTable& t);
void RegisterScalarBoundBuiltins(BoundTable& t);  // pl.min / pl.max of two ints (builtins_tile.cpp)

// A cross-core set / wait of the running core (builtins_sync.cpp), for pl.system.set_cross_core
// / wait_cross_core and the events of the pipeline transform (pipeline_stage.h). `pipe`: the
// pipe the set publishes / the wait joins (nullopt: every pipe). `what` names the call in
// findings, `where` says what a blocked wait waits for in a deadlock report.
void CrossCoreSet(Interp& in, CrossMode mode, int event, std::optional<Pipe> pipe, int line, std::string_view what);
void CrossCoreWait(Interp& in, CrossMode mode, int event, std::optional<Pipe> pipe, int line, std::string_view what,
                   const std::string& where);

// The pipe model (builtins_pipe.cpp, pipe_sync.h). A builtin tile operation inside a kernel:
// PipeOpBefore puts it on its pipe (auto_mutex locks, phase unit flag, its accesses checked
// against the other pipes); PipeOpAfter releases its locks once the operation ran.
// The auto_mutex ids of an operation's tiles, ascending and distinct.
using MutexIdList = IndexList;
struct PipeOp {
  bool active = false;
  Pipe pipe = Pipe::kV;
  MutexIdList ids;           // auto_mutex ids locked around it
  uint64_t acc = 0;          // Acc block of a phase= operation
  int phase = 0;             // 0 none, 1 Partial matmul, 2 Final matmul, 3 phase store
};
PipeOp PipeOpBefore(Interp& in, const XNode& call, std::vector<Value>& pos, Kwargs& kw);
void PipeOpAfter(Interp& in, const PipeOp& op);
// The bound form (BoundFn) of a vf.* register load or store whose pipe is fixed
// (BindsOnPipe): what PipeOpBefore does for its general entry, the epoch of its accesses.
void PipeVfRegisterOpBegin(Interp& in, const XNode& call);
// A @pl.vector_function call under auto_mutex: its tile arguments' ids locked on V around it.
MutexIdList PipeVfCallBefore(Interp& in, std::vector<Value>& args, Kwargs& kw);
void PipeVfCallAfter(Interp& in, const MutexIdList& ids);
// A vf.* register load or store (builtins_vf.cpp): the V access of exactly the UB bytes
// [begin, end) it moves (clamped to the tile's bytes), under the operation's epoch (PipeOpBefore).
void PipeRegisterAccess(Interp& in, const Tile& t, uint64_t begin, uint64_t end, bool write, const char* what);
// getval / setval / subscripts of a tile: an S access of [pos, pos + len) (auto_mutex on S).
void PipeScalarAccess(Interp& in, const Tile& t, uint64_t pos, uint64_t len, bool write, const char* what);
// End of a core: pending flags into the statistics, mutexes still held.
void FinishPipes(Interp& in, CoreContext& core, bool completed);

// `obj.name = v` (builtins_aggregate.cpp): a field of a pl.struct; anything else is an error.
void AssignField(Interp& in, const Value& obj, const std::string& name, const Value& v, int line);

// Element access by subscript (builtins_scalar.cpp): `container[i, j]` and
// `container[i, j] = v` of a Vec tile or a GM tensor inside a kernel.
Value ReadElement(Interp& in, const Value& container, const Value& index, int line);

// Tile sub-views (builtins_subview.cpp): `tile[r0:r1, c0:c1]`, a tile over the same bytes.
bool IsTileSubview(const Value& obj, const Value& index);
Value TileSubview(Interp& in, const Value& obj, const Value& index, int line);
void WriteElement(Interp& in, const Value& container, const Value& index, const Value& v, int line);

// Cube hooks (builtins_cube.cpp): the Acc side of pl.store (phase / accumulation rules; call
// before the FIX transfer), a new L1 tile group's bank placement, and the end-of-core checks.
void CubeStoreFromAcc(Interp& in, const Args& a, Tile& acc, const std::string& phase);
void CheckL1Group(Interp& in, const TileGroup& g);
// scale= / relu_pre_mode= of a FIX transfer from Acc tile `acc` into `dst` dtype elements
// (pl.store / pl.store_tile, `has_phase` when phase= is given; pl.move Acc -> Vec with its
// acc_to_vec_mode): the per-tensor or per-channel options, SIM-FIX-QUANT for a combination the
// frontend rejects or the fixpipe cannot produce.
FixOptions ResolveFix(Interp& in, const Args& a, const Tile& acc, DType dst, bool has_phase,
                      const std::string& acc_to_vec_mode);
void FinishCubeCore(Interp& in, CoreContext& core);

Value MakeReg(const VReg& r);  // one copy into pooled storage
Value MakeMask(const MaskReg& m);
// The result of a register operation stored in `out`: in the register or mask `out` holds
// when nothing else shares it (`x = vf.add(x, y, m)` in a VF loop), else as MakeReg / MakeMask.
void PutReg(Value& out, const VReg& r);
void PutMask(Value& out, const MaskReg& m);
// PutMask(out, MaskReg::FirstN(count, width)), built in place when out's mask is its own.
void PutFirstNMask(Value& out, int64_t count, int width);

}  // namespace opdev::sim
