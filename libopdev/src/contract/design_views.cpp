// Typed accessors of the DESIGN.md model: the values later stages need, read from the tables,
// code blocks and bullets of the sections the design template defines (see design_doc.h).
#include "opdev/contract/design_doc.h"

#include "contract/text_util.h"

#include <cctype>
#include <cstdint>
#include <cstring>
#include <functional>

namespace opdev::contract {

// --- literals -------------------------------------------------------------------------------

std::optional<std::int64_t> ParseIntLiteral(std::string_view raw) {
  std::string s = StripBackticks(raw);
  // Allow a trailing unit/annotation: take the leading numeric token only.
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) { neg = s[i] == '-'; ++i; }
  if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
  std::int64_t v = 0;
  if (s.size() > i + 1 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    i += 2;
    size_t start = i;
    while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i]))) {
      int d = std::isdigit(static_cast<unsigned char>(s[i])) ? s[i] - '0'
                                                              : (std::tolower(s[i]) - 'a' + 10);
      if (__builtin_mul_overflow(v, 16, &v) || __builtin_add_overflow(v, d, &v))
        return std::nullopt;
      ++i;
    }
    if (i == start) return std::nullopt;
  } else {
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[i] - '0', &v))
        return std::nullopt;
      ++i;
    }
  }
  // The token must end here (e.g. "49152", "0x0C000", "49152 B"), not continue as "3.5"/"48KB".
  if (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == '_'))
    return std::nullopt;
  return neg ? -v : v;  // v >= 0 here, so negation cannot overflow
}

std::vector<std::int64_t> AllIntegers(std::string_view s) {
  std::vector<std::int64_t> out;
  size_t i = 0;
  while (i < s.size()) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) &&
        (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
      size_t j = i;
      if (s[j] == '0' && j + 1 < s.size() && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
        j += 2;
        while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
      } else {
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      if (auto v = ParseIntLiteral(s.substr(i, j - i))) out.push_back(*v);
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

std::vector<std::int64_t> ParseShapeList(std::string_view raw) {
  std::string s = StripBackticks(raw);
  size_t a = s.find('['), b = s.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return {};
  std::vector<std::int64_t> out;
  for (const auto& part : Split(std::string_view(s).substr(a + 1, b - a - 1), ',')) {
    auto v = ParseIntLiteral(Trim(part));
    if (!v || Trim(part).find_first_not_of("0123456789xXabcdefABCDEF") != std::string::npos)
      return {};  // symbolic dimension
    out.push_back(*v);
  }
  return out;
}

namespace {

std::optional<MemSpace> SpaceFromText(std::string_view raw) {
  std::string s = StripBackticks(raw);
  if (auto sp = ParseMemSpace(s)) return sp;
  // "UB(Vec)", "L1(Mat)", "L0C(Acc)": try the part in parentheses, then the part before.
  size_t a = s.find('('), b = s.find(')');
  if (a != std::string::npos && b != std::string::npos && b > a) {
    if (auto sp = ParseMemSpace(Trim(s.substr(a + 1, b - a - 1)))) return sp;
    if (auto sp = ParseMemSpace(Trim(s.substr(0, a)))) return sp;
  }
  return std::nullopt;
}

std::optional<DType> DTypeFromText(std::string_view raw) {
  return ParseDType(StripBackticks(raw));
}

// "`in_slot` (in_group)" -> "in_group"; "`in_group[0]`" -> "in_group"; "`tile_a`" -> "tile_a".
std::string GroupOf(std::string_view raw) {
  std::string s = StripBackticks(raw);
  size_t a = s.find('('), b = s.find(')');
  if (a != std::string::npos && b != std::string::npos && b > a)
    return Trim(s.substr(a + 1, b - a - 1));
  size_t br = s.find('[');
  if (br != std::string::npos) return Trim(s.substr(0, br));
  return Trim(s);
}

// Integer expression evaluator for §2.1 constants: literals, names, + - * // % ( ).
class ExprEval {
 public:
  ExprEval(std::string_view s, const std::map<std::string, std::int64_t>& env) : s_(s), env_(env) {}
  std::optional<std::int64_t> Run() {
    auto v = Sum();
    Ws();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void Ws() { while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_; }
  std::optional<std::int64_t> Sum() {
    auto v = Prod();
    while (v) {
      Ws();
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) {
        char op = s_[pos_++];
        auto r = Prod();
        if (!r) return std::nullopt;
        std::int64_t out;
        if (op == '+' ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out))
          return std::nullopt;
        v = out;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<std::int64_t> Prod() {
    auto v = Unary();
    while (v) {
      Ws();
      if (s_.compare(pos_, 2, "//") == 0) {
        pos_ += 2;
        auto r = Unary();
        if (!r || *r == 0 || (*r == -1 && *v == INT64_MIN)) return std::nullopt;
        std::int64_t q = *v / *r;
        if ((*v % *r != 0) && ((*v < 0) != (*r < 0))) --q;  // Python floor division
        v = q;
      } else if (pos_ < s_.size() && (s_[pos_] == '*' || s_[pos_] == '%')) {
        char op = s_[pos_++];
        if (op == '*' && pos_ < s_.size() && s_[pos_] == '*') return std::nullopt;  // no **
        auto r = Unary();
        if (!r || (op == '%' && (*r == 0 || *r == -1))) return std::nullopt;
        std::int64_t out;
        if (op == '*') {
          if (__builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
        } else {
          out = *v % *r;
        }
        v = out;
      } else {
        break;
      }
    }
    return v;
  }
  std::optional<std::int64_t> Unary() {
    Ws();
    if (pos_ < s_.size() && s_[pos_] == '-') {
      ++pos_;
      auto v = Unary();
      if (!v || *v == INT64_MIN) return std::nullopt;
      return -*v;
    }
    if (pos_ < s_.size() && s_[pos_] == '(') {
      ++pos_;
      auto v = Sum();
      Ws();
      if (pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
      return v;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    if (start == pos_) return std::nullopt;
    std::string tok(s_.substr(start, pos_ - start));
    if (pos_ < s_.size() && s_[pos_] == '.') return std::nullopt;  // float
    if (std::isdigit(static_cast<unsigned char>(tok[0]))) return ParseIntLiteral(tok);
    auto it = env_.find(tok);
    if (it == env_.end()) return std::nullopt;
    return it->second;
  }
  std::string_view s_;
  size_t pos_ = 0;
  const std::map<std::string, std::int64_t>& env_;
};

const Table* FirstTable(const std::vector<const Table*>& ts,
                        std::initializer_list<std::string_view> headers) {
  for (const Table* t : ts) {
    bool all = true;
    for (auto h : headers) all = all && t->Column(h, true) >= 0;
    if (all) return t;
  }
  return nullptr;
}

}  // namespace

// --- accessors ------------------------------------------------------------------------------

std::string DesignDoc::OpName(int* line) const {
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    size_t p = l.find("op_name");
    if (p == std::string::npos) continue;
    size_t colon = l.find(':', p);
    size_t wide = l.find("：", p);
    size_t c = std::min(colon, wide);
    if (c == std::string::npos) continue;
    size_t after = c + (c == wide ? std::strlen("：") : 1);
    std::string v = StripBackticks(l.substr(after));
    // drop markdown emphasis
    while (!v.empty() && v[0] == '*') v.erase(0, 1);
    v = Trim(v);
    size_t sp = v.find_first_of(" \t（(");
    if (sp != std::string::npos) v = v.substr(0, sp);
    if (v.empty()) continue;
    if (line) *line = static_cast<int>(i + 1);
    return v;
  }
  if (line) *line = 0;
  return {};
}

std::vector<DesignModule> DesignDoc::Modules() const {
  std::vector<DesignModule> out;
  const Table* t = FirstTable(TablesIn(0), {"Module", "Section"});
  if (!t) return out;
  for (const auto& r : t->rows) {
    DesignModule m;
    m.name = StripBackticks(t->Get(r, "Module"));
    auto ints = AllIntegers(m.name);
    m.index = ints.empty() ? 0 : static_cast<int>(ints[0]);
    m.purpose = t->Get(r, "目的");
    m.inputs = t->Get(r, "输入依赖");
    m.outputs = t->Get(r, "输出");
    m.section = StripBackticks(t->Get(r, "Section"));
    m.line = r.line;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<VectorSelection> DesignDoc::VectorSelections() const {
  std::vector<VectorSelection> out;
  for (const Table* t : TablesIn(1)) {
    if (t->Column("implementation") < 0 || t->Column("decision_reason") < 0) continue;
    for (const auto& r : t->rows) {
      VectorSelection v;
      v.step = StripBackticks(t->Get(r, "step"));
      v.implementation = StripBackticks(t->Get(r, "implementation"));
      v.api_sequence = t->Get(r, "api_sequence");
      v.decision_reason = StripBackticks(t->Get(r, "decision_reason"));
      v.kb_template_evidence = t->Get(r, "kb_template_evidence");
      v.target_version = t->Get(r, "target_version");
      v.applicable_conditions = t->Get(r, "applicable_conditions");
      v.line = r.line;
      out.push_back(std::move(v));
    }
  }
  // Code-block form: "vector_selection:" followed by "key: value" lines, one entry per `step:`.
  for (const CodeBlock* cb : CodeIn(1)) {
    if (!Contains(cb->text, "vector_selection")) continue;
    auto ls = SplitLines(cb->text);
    std::optional<VectorSelection> cur;
    auto flush = [&] {
      // The template's own definition ("vf | tile_op") is not a frozen selection.
      if (cur && !Contains(cur->implementation, "|")) out.push_back(*cur);
      cur.reset();
    };
    for (size_t i = 0; i < ls.size(); ++i) {
      std::string l = Trim(ls[i]);
      if (l.rfind("- ", 0) == 0) l = Trim(l.substr(2));
      size_t c = l.find(':');
      if (c == std::string::npos) continue;
      std::string key = Trim(l.substr(0, c)), val = StripBackticks(Trim(l.substr(c + 1)));
      int line = cb->line + 1 + static_cast<int>(i);
      if (key == "vector_selection") { flush(); continue; }
      if (key == "step") { flush(); cur = VectorSelection{}; cur->line = line; }
      if (!cur) continue;
      if (key == "step") cur->step = val;
      else if (key == "implementation") cur->implementation = val;
      else if (key == "api_sequence") cur->api_sequence = val;
      else if (key == "decision_reason") cur->decision_reason = val;
      else if (key == "kb_template_evidence") cur->kb_template_evidence = val;
      else if (key == "target_version") cur->target_version = val;
      else if (key == "applicable_conditions") cur->applicable_conditions = val;
    }
    flush();
  }
  return out;
}

const CodeBlock* DesignDoc::ConstantsCode() const {
  for (std::string_view sub : {"2.1", "关键常量"}) {
    auto cbs = CodeIn(2, sub);
    if (!cbs.empty()) return cbs.front();
  }
  return nullptr;
}

std::vector<Constant> DesignDoc::Constants() const {
  std::vector<Constant> out;
  const CodeBlock* cb = ConstantsCode();
  if (!cb) return out;
  std::map<std::string, std::int64_t> env;
  auto ls = SplitLines(cb->text);
  for (size_t i = 0; i < ls.size(); ++i) {
    const std::string& l = ls[i];
    if (l.empty() || !(std::isalpha(static_cast<unsigned char>(l[0])) || l[0] == '_')) continue;
    size_t eq = l.find('=');
    if (eq == std::string::npos || (eq + 1 < l.size() && l[eq + 1] == '=')) continue;
    std::string name = Trim(l.substr(0, eq));
    if (name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
        std::string::npos)
      continue;
    std::string expr = l.substr(eq + 1);
    size_t hash = expr.find('#');
    if (hash != std::string::npos) expr = expr.substr(0, hash);
    expr = Trim(expr);
    Constant c{name, expr, ExprEval(expr, env).Run(), cb->line + 1 + static_cast<int>(i)};
    if (c.value) env[name] = *c.value;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<TileAttr> DesignDoc::Tiles() const {
  std::vector<TileAttr> out;
  const Table* t = FirstTable(TablesIn(2), {"变量名", "内存空间"});
  if (!t) return out;
  for (const auto& r : t->rows) {
    TileAttr a;
    a.purpose = t->Get(r, "用途");
    a.var = t->Get(r, "变量名");
    a.shape_text = t->Get(r, "shape");
    a.dtype_text = t->Get(r, "dtype");
    a.space_text = t->Get(r, "内存空间");
    a.layout = t->Get(r, "layout");
    a.size_text = t->Get(r, "大小", true);
    a.notes = t->Get(r, "备注");
    a.shape = ParseShapeList(a.shape_text);
    a.dtype = DTypeFromText(a.dtype_text);
    a.space = SpaceFromText(a.space_text);
    a.size_bytes = ParseIntLiteral(a.size_text);
    a.group = GroupOf(a.var);
    a.line = r.line;
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<TileGroupSlots> DesignDoc::TileGroups() const {
  std::vector<TileGroupSlots> out;
  const Table* t = FirstTable(TablesIn(2), {"TileGroup", "depth"});
  if (!t) return out;
  for (const auto& r : t->rows) {
    TileGroupSlots g;
    g.name = StripBackticks(t->Get(r, "TileGroup"));
    g.depth = ParseIntLiteral(t->Get(r, "depth"));
    g.mutex_text = t->Get(r, "mutex", true);
    // Only the bracketed list counts ("[[0],[1]]（Tile0:[0], ...）" -> 0, 1).
    std::string ids = g.mutex_text;
    size_t b = ids.find('[');
    if (b != std::string::npos) {
      int depth = 0;
      size_t e = b;
      for (; e < ids.size(); ++e) {
        if (ids[e] == '[') ++depth;
        else if (ids[e] == ']' && --depth == 0) break;
      }
      ids = ids.substr(b, e - b + 1);
      g.mutex_ids = AllIntegers(ids);
    }
    g.access = t->Get(r, "访问方式");
    g.slot_expr = t->Get(r, "槽位表达式");
    g.notes = t->Get(r, "同步", true);
    g.line = r.line;
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<AddressEntry> DesignDoc::AddressMap() const {
  std::vector<AddressEntry> out;
  for (const Table* t : TablesIn(3)) {
    if (t->Column("起始字节", true) < 0 || t->Column("每槽字节数", true) < 0) continue;
    for (const auto& r : t->rows) {
      AddressEntry e;
      e.space_text = t->Get(r, "内存空间");
      e.purpose = t->Get(r, "用途");
      e.var = t->Get(r, "变量名");
      e.shape_text = t->Get(r, "shape");
      e.dtype_text = t->Get(r, "dtype");
      e.layout = t->Get(r, "layout");
      e.start_text = t->Get(r, "起始字节", true);
      e.slot_bytes_text = t->Get(r, "每槽字节数", true);
      e.slots_text = t->Get(r, "槽位数", true);
      e.lifetime = t->Get(r, "生命周期", true);
      e.end_text = t->Get(r, "结束字节", true);
      e.notes = t->Get(r, "备注");
      e.space = SpaceFromText(e.space_text);
      e.shape = ParseShapeList(e.shape_text);
      e.dtype = DTypeFromText(e.dtype_text);
      e.start = ParseIntLiteral(e.start_text);
      e.slot_bytes = ParseIntLiteral(e.slot_bytes_text);
      e.slots = ParseIntLiteral(e.slots_text);
      e.end = ParseIntLiteral(e.end_text);
      e.group = GroupOf(e.var);
      e.line = r.line;
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<AddressEntry> DesignDoc::AddressMap(MemSpace space) const {
  std::vector<AddressEntry> out;
  for (auto& e : AddressMap())
    if (e.space == space) out.push_back(std::move(e));
  return out;
}

std::vector<HighWater> DesignDoc::HighWaters() const {
  std::vector<HighWater> out;
  const Section* s = FindSection(3);
  if (!s) return out;
  bool in_list = false;
  for (int l = s->line; l <= s->end_line && l <= static_cast<int>(lines.size()); ++l) {
    const std::string& text = lines[l - 1];
    if (Contains(text, "高水位") && !Contains(text, "|")) { in_list = true; continue; }
    if (!in_list) continue;
    std::string t = Trim(text);
    if (t.empty()) { if (!out.empty()) break; continue; }
    if (t[0] != '-' && t[0] != '*') break;
    HighWater h;
    h.line = l;
    h.text = Trim(t.substr(1));
    size_t colon = h.text.find(':');
    std::string head = colon == std::string::npos ? h.text : h.text.substr(0, colon);
    h.space = SpaceFromText(head);
    std::string rest = colon == std::string::npos ? std::string() : h.text.substr(colon + 1);
    size_t slash = rest.find('/');
    auto before = AllIntegers(rest.substr(0, slash));
    if (!before.empty()) h.bytes = before.front();
    if (slash != std::string::npos) {
      auto after = AllIntegers(rest.substr(slash + 1));
      if (!after.empty()) h.capacity = after.front();
    }
    out.push_back(std::move(h));
  }
  return out;
}

CoreSplit DesignDoc::GetCoreSplit() const {
  CoreSplit cs;
  const Section* s = FindSection(5);
  if (!s) return cs;
  for (int l = s->line; l <= s->end_line && l <= static_cast<int>(lines.size()); ++l) {
    std::string t = Trim(lines[l - 1]);
    if (t.rfind("- **", 0) != 0) continue;
    size_t e = t.find("**", 4);
    if (e == std::string::npos) continue;
    std::string key = t.substr(4, e - 4);
    std::string val = Trim(t.substr(e + 2));
    if (val.rfind(":", 0) == 0) val = Trim(val.substr(1));
    else if (val.rfind("：", 0) == 0) val = Trim(val.substr(std::strlen("：")));
    if (Contains(key, "TensorList")) cs.tensor_list = val;
    else if (Contains(key, "block_dim")) { cs.block_dim = val; cs.block_dim_line = l; }
    else if (Contains(key, "launch")) { cs.launch_contract = val; cs.launch_line = l; }
    else if (Contains(key, "方案")) { cs.scheme = val; cs.scheme_line = l; }
  }
  cs.uses_vector_core_num = Contains(cs.block_dim, "vector_core_num");
  for (size_t p = cs.block_dim.find("core_num"); p != std::string::npos;
       p = cs.block_dim.find("core_num", p + 1))
    if (p < 7 || cs.block_dim.compare(p - 7, 7, "vector_") != 0) cs.uses_core_num = true;
  std::string lc = RemoveSpaces(cs.launch_contract);
  if (Contains(lc, "恰好1次") || Contains(lc, "exactly1") || Contains(lc, "exactlyone"))
    cs.launch_count = 1;
  return cs;
}

namespace {

// "`M=300, K=200, N=500`" -> {{M, 300}, {K, 200}, {N, 500}}; empty unless every
// comma-separated part is NAME=INT.
std::vector<std::pair<std::string, std::int64_t>> ParseSymbolDims(std::string_view raw) {
  std::vector<std::pair<std::string, std::int64_t>> out;
  std::string s = StripBackticks(raw);
  for (const auto& part : Split(s, ',')) {
    std::string p = Trim(part);
    auto eq = p.find('=');
    if (eq == std::string::npos) return {};
    std::string name = Trim(p.substr(0, eq)), value = Trim(p.substr(eq + 1));
    if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
      return {};
    for (char ch : name)
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') return {};
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos ||
        value.size() > 12)
      return {};
    out.push_back({name, std::stoll(value)});
  }
  return out;
}

}  // namespace

std::vector<TestCase> DesignDoc::TestCases() const {
  std::vector<TestCase> out;
  for (const Table* t : TablesIn(8)) {
    int name_col = t->Column("case", true);
    if (name_col < 0) name_col = 0;
    for (const auto& r : t->rows) {
      if (r.cells.empty() || name_col >= static_cast<int>(r.cells.size())) continue;
      std::string name = StripBackticks(r.cells[name_col]);
      if (name.rfind("test_", 0) != 0) continue;
      TestCase c;
      c.name = name;
      c.shape_text = t->Get(r, "shape", true);
      c.shape = ParseShapeList(c.shape_text);
      if (c.shape.empty()) c.dims = ParseSymbolDims(c.shape_text);
      c.scene = t->Get(r, "覆盖场景");
      c.confirmation = t->Get(r, "design", true);
      c.line = r.line;
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<EventId> DesignDoc::EventIds() const {
  std::vector<EventId> out;
  for (const Table* t : TablesIn(6)) {
    int col = t->Column("event_id", true);
    if (col < 0) continue;
    for (const auto& r : t->rows) {
      if (col >= static_cast<int>(r.cells.size())) continue;
      for (auto v : AllIntegers(r.cells[col])) out.push_back({v, r.cells[col], r.line});
    }
  }
  return out;
}

std::optional<std::pair<std::string, int>> DesignDoc::SubsectionBody(
    std::string_view title_part) const {
  for (const auto& s : sections) {
    const Subsection* sub = s.FindSubsection(title_part);
    if (!sub) continue;
    std::string body;
    int first = 0;
    for (int l = sub->line + 1; l <= sub->end_line && l <= static_cast<int>(lines.size()); ++l) {
      std::string t = Trim(lines[l - 1]);
      if (t.empty() || t == "---" || t == "***") continue;
      if (!first) first = l;
      if (!body.empty()) body += '\n';
      body += t;
    }
    return std::make_pair(body, first ? first : sub->line);
  }
  return std::nullopt;
}

}  // namespace opdev::contract
