#include "compare/readers/torch_pickle.h"

#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

namespace banjia::compare {

namespace {

struct Value;
using Ref = std::shared_ptr<Value>;

// What a pickle value can be once read: no object is ever constructed from a class it names.
struct Value {
  enum Kind { kNone, kBool, kInt, kFloat, kString, kList, kTuple, kDict, kGlobal, kStorage, kTensor, kMark };
  Kind kind = kNone;
  int64_t i = 0;
  double f = 0;
  std::string s;                           // string, global "module.name", storage key
  std::vector<Ref> items;                  // list, tuple; dict: key, value, key, value...
  DType dtype = DType::kF32;               // storage
  PickledTensor tensor;                    // tensor
};

// torch's typed storage classes, by the name torch.save writes for each dtype.
const std::map<std::string, DType, std::less<>>& storage_types() {
  static const std::map<std::string, DType, std::less<>> kTypes = {
      {"torch.FloatStorage", DType::kF32}, {"torch.DoubleStorage", DType::kF64},
      {"torch.HalfStorage", DType::kF16},  {"torch.BFloat16Storage", DType::kBF16},
      {"torch.LongStorage", DType::kI64},  {"torch.IntStorage", DType::kI32},
      {"torch.ShortStorage", DType::kI16}, {"torch.CharStorage", DType::kI8},
      {"torch.ByteStorage", DType::kU8},   {"torch.BoolStorage", DType::kBool}};
  return kTypes;
}

class Reader {
 public:
  explicit Reader(std::string_view p) : p_(p) {}
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  // A pickle can make a container hold itself (a list memoized, fetched and appended to itself:
  // fuzz_torch_pt, self-holding-list): the containers are emptied here, so no cycle of shared
  // pointers outlives the reader.
  ~Reader() {
    for (const std::weak_ptr<Value>& w : containers_)
      if (Ref v = w.lock()) v->items.clear();
  }

  std::variant<Ref, std::string> run() {
    while (pos_ < p_.size()) {
      uint8_t op = static_cast<uint8_t>(p_[pos_++]);
      std::string problem = step(op);
      if (problem == "stop") {
        if (stack_.size() != 1) return std::string("pickle stops with a malformed stack");
        return stack_.back();
      }
      if (!problem.empty()) return problem;
    }
    return std::string("pickle ends without STOP");
  }

 private:
  Ref make(Value::Kind k) {
    auto v = std::make_shared<Value>();
    v->kind = k;
    if (k == Value::kList || k == Value::kTuple || k == Value::kDict) containers_.push_back(v);
    return v;
  }

  bool take(size_t n, std::string_view& out) {
    if (p_.size() - pos_ < n) return false;
    out = p_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool uint_le(size_t n, uint64_t& v) {
    std::string_view b;
    if (!take(n, b)) return false;
    v = 0;
    for (size_t k = 0; k < n; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[k])) << (8 * k);
    return true;
  }
  bool line(std::string& out) {
    size_t nl = p_.find('\n', pos_);
    if (nl == std::string_view::npos) return false;
    out = std::string(p_.substr(pos_, nl - pos_));
    pos_ = nl + 1;
    return true;
  }
  Ref pop() {
    if (stack_.empty()) return nullptr;
    Ref v = stack_.back();
    stack_.pop_back();
    return v;
  }
  // Everything above the topmost mark, which is removed.
  std::optional<std::vector<Ref>> pop_mark() {
    for (size_t k = stack_.size(); k-- > 0;) {
      if (stack_[k]->kind != Value::kMark) continue;
      std::vector<Ref> out(stack_.begin() + static_cast<long>(k) + 1, stack_.end());
      stack_.resize(k);
      return out;
    }
    return std::nullopt;
  }
  std::string push_string(size_t len_bytes) {
    uint64_t n = 0;
    std::string_view b;
    if (!uint_le(len_bytes, n) || !take(n, b)) return "truncated string";
    Ref v = make(Value::kString);
    v->s = std::string(b);
    stack_.push_back(v);
    return "";
  }
  std::string push_int(int64_t x) {
    Ref v = make(Value::kInt);
    v->i = x;
    stack_.push_back(v);
    return "";
  }
  std::string memo_put(uint64_t k) {
    if (stack_.empty()) return "memo of an empty stack";
    memo_[k] = stack_.back();
    return "";
  }
  std::string memo_get(uint64_t k) {
    auto it = memo_.find(k);
    if (it == memo_.end()) return "memo key not set";
    stack_.push_back(it->second);
    return "";
  }

  std::string reduce(const Ref& fn, const Ref& args) {
    if (!fn || !args || fn->kind != Value::kGlobal || args->kind != Value::kTuple) return "malformed REDUCE";
    if (fn->s == "collections.OrderedDict") {
      stack_.push_back(make(Value::kDict));
      return "";
    }
    // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
    const auto& a = args->items;
    if (a.size() < 4 || a[0]->kind != Value::kStorage || a[1]->kind != Value::kInt || a[2]->kind != Value::kTuple ||
        a[3]->kind != Value::kTuple || a[2]->items.size() != a[3]->items.size())
      return "malformed _rebuild_tensor_v2 arguments";
    Ref t = make(Value::kTensor);
    t->tensor.dtype = a[0]->dtype;
    t->tensor.storage_key = a[0]->s;
    t->tensor.storage_numel = a[0]->i;
    t->tensor.offset = a[1]->i;
    for (size_t k = 0; k < a[2]->items.size(); ++k) {
      if (a[2]->items[k]->kind != Value::kInt || a[3]->items[k]->kind != Value::kInt) return "non-integer tensor size";
      t->tensor.shape.push_back(a[2]->items[k]->i);
      t->tensor.stride.push_back(a[3]->items[k]->i);
    }
    stack_.push_back(t);
    return "";
  }

  std::string global(const std::string& module, const std::string& name) {
    std::string full = module + "." + name;
    if (full == "torch._utils._rebuild_tensor_v2" || full == "collections.OrderedDict" ||
        storage_types().contains(full)) {
      Ref g = make(Value::kGlobal);
      g->s = full;
      stack_.push_back(g);
      return "";
    }
    return fmt::format("refuses global {} (only tensors and plain containers are read)", full);
  }

  std::string persistent(const Ref& pid) {
    // ('storage', torch.FloatStorage, key, location, numel)
    if (!pid || pid->kind != Value::kTuple || pid->items.size() != 5 || pid->items[0]->kind != Value::kString ||
        pid->items[0]->s != "storage" || pid->items[1]->kind != Value::kGlobal || pid->items[2]->kind != Value::kString ||
        pid->items[4]->kind != Value::kInt)
      return "unsupported persistent id (not a torch storage)";
    auto it = storage_types().find(pid->items[1]->s);
    if (it == storage_types().end()) return "persistent id names no storage type";
    Ref st = make(Value::kStorage);
    st->dtype = it->second;
    st->s = pid->items[2]->s;
    st->i = pid->items[4]->i;
    stack_.push_back(st);
    return "";
  }

  std::string step(uint8_t op) {
    uint64_t n = 0;
    std::string_view b;
    switch (op) {
      case 0x80: return uint_le(1, n) ? "" : "truncated PROTO";
      case 0x95: return uint_le(8, n) ? "" : "truncated FRAME";  // frames only group bytes
      case '.': return "stop";
      case '(': stack_.push_back(make(Value::kMark)); return "";
      case 'N': stack_.push_back(make(Value::kNone)); return "";
      case 0x88: case 0x89: {
        Ref v = make(Value::kBool);
        v->i = op == 0x88;
        stack_.push_back(v);
        return "";
      }
      case 'K': return uint_le(1, n) ? push_int(static_cast<int64_t>(n)) : "truncated BININT1";
      case 'M': return uint_le(2, n) ? push_int(static_cast<int64_t>(n)) : "truncated BININT2";
      case 'J': return uint_le(4, n) ? push_int(static_cast<int32_t>(static_cast<uint32_t>(n))) : "truncated BININT";
      case 0x8a: {  // LONG1: little-endian two's complement of n bytes
        if (!uint_le(1, n) || n > 8 || !take(n, b)) return "unsupported LONG1";
        uint64_t x = 0;
        for (size_t k = 0; k < n; ++k) x |= static_cast<uint64_t>(static_cast<uint8_t>(b[k])) << (8 * k);
        if (n > 0 && n < 8 && (static_cast<uint8_t>(b[n - 1]) & 0x80)) x |= ~uint64_t{0} << (8 * n);
        return push_int(static_cast<int64_t>(x));
      }
      case 'G': {
        if (!take(8, b)) return "truncated BINFLOAT";
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | static_cast<uint8_t>(b[k]);
        Ref v = make(Value::kFloat);
        std::memcpy(&v->f, &bits, 8);
        stack_.push_back(v);
        return "";
      }
      case 'X': return push_string(4);
      case 0x8c: return push_string(1);                  // SHORT_BINUNICODE
      case 'U': case 'C': return push_string(1);          // SHORT_BINSTRING, SHORT_BINBYTES
      case 'T': case 'B': return push_string(4);          // BINSTRING, BINBYTES
      case 'q': return uint_le(1, n) ? memo_put(n) : "truncated BINPUT";
      case 'r': return uint_le(4, n) ? memo_put(n) : "truncated LONG_BINPUT";
      case 0x94: return memo_put(memo_.size());          // MEMOIZE
      case 'h': return uint_le(1, n) ? memo_get(n) : "truncated BINGET";
      case 'j': return uint_le(4, n) ? memo_get(n) : "truncated LONG_BINGET";
      case '}': stack_.push_back(make(Value::kDict)); return "";
      case ']': stack_.push_back(make(Value::kList)); return "";
      case ')': stack_.push_back(make(Value::kTuple)); return "";
      case 't': {
        auto items = pop_mark();
        if (!items) return "TUPLE without MARK";
        Ref v = make(Value::kTuple);
        v->items = std::move(*items);
        stack_.push_back(v);
        return "";
      }
      case 0x85: case 0x86: case 0x87: {
        size_t k = op - 0x84u;
        if (stack_.size() < k) return "TUPLE of an empty stack";
        Ref v = make(Value::kTuple);
        v->items.assign(stack_.end() - static_cast<long>(k), stack_.end());
        stack_.resize(stack_.size() - k);
        stack_.push_back(v);
        return "";
      }
      case 'a': case 'e': case 's': case 'u': {
        std::vector<Ref> items;
        if (op == 'a' || op == 's') {
          size_t k = op == 'a' ? 1 : 2;
          if (stack_.size() < k + 1) return "APPEND/SETITEM of an empty stack";
          items.assign(stack_.end() - static_cast<long>(k), stack_.end());
          stack_.resize(stack_.size() - k);
        } else {
          auto marked = pop_mark();
          if (!marked) return "APPENDS/SETITEMS without MARK";
          items = std::move(*marked);
        }
        if (stack_.empty()) return "APPEND/SETITEM without a container";
        Ref c = stack_.back();
        bool dict = op == 's' || op == 'u';
        if (c->kind != (dict ? Value::kDict : Value::kList) || (dict && items.size() % 2)) return "malformed container";
        c->items.insert(c->items.end(), items.begin(), items.end());
        return "";
      }
      case 'c': {
        std::string module, name;
        if (!line(module) || !line(name)) return "truncated GLOBAL";
        return global(module, name);
      }
      case 0x93: {  // STACK_GLOBAL
        Ref name = pop(), module = pop();
        if (!name || !module || name->kind != Value::kString || module->kind != Value::kString) return "malformed STACK_GLOBAL";
        return global(module->s, name->s);
      }
      case 'R': {
        Ref args = pop(), fn = pop();
        return reduce(fn, args);
      }
      case 'Q': return persistent(pop());
      case 'b': {  // BUILD: only an empty or dict state on a dict (an OrderedDict's), which adds nothing read here
        Ref state = pop();
        if (!state || stack_.empty() || stack_.back()->kind != Value::kDict ||
            (state->kind != Value::kNone && state->kind != Value::kDict))
          return "refuses BUILD (object state)";
        return "";
      }
      default: return fmt::format("refuses pickle opcode 0x{:02x}", op);
    }
  }

  std::string_view p_;
  size_t pos_ = 0;
  std::vector<Ref> stack_;
  std::vector<std::weak_ptr<Value>> containers_;  // every list, tuple and dict made
  std::map<uint64_t, Ref> memo_;
};

void collect(const Ref& v, const std::string& name, std::vector<PickledTensor>& out, int depth) {
  if (!v || depth > 64) return;
  auto child = [&](const std::string& k) { return name.empty() ? k : name + "." + k; };
  switch (v->kind) {
    case Value::kTensor:
      out.push_back(v->tensor);
      out.back().name = name;
      break;
    case Value::kList: case Value::kTuple:
      for (size_t k = 0; k < v->items.size(); ++k) collect(v->items[k], child(std::to_string(k)), out, depth + 1);
      break;
    case Value::kDict:
      for (size_t k = 0; k + 1 < v->items.size(); k += 2) {
        const Ref& key = v->items[k];
        std::string label = key->kind == Value::kString ? key->s : key->kind == Value::kInt ? std::to_string(key->i) : std::to_string(k / 2);
        collect(v->items[k + 1], child(label), out, depth + 1);
      }
      break;
    default: break;
  }
}

}  // namespace

std::variant<std::vector<PickledTensor>, std::string> read_torch_pickle(std::string_view pickle) {
  Reader reader(pickle);  // outlives what it read (its destructor empties the containers)
  auto result = reader.run();
  if (auto* problem = std::get_if<std::string>(&result)) return *problem;
  std::vector<PickledTensor> tensors;
  collect(std::get<Ref>(result), "", tensors, 0);
  return tensors;
}

}  // namespace banjia::compare
