// Slots and operand steps of expressions on the token view (python/expression.h). Each case names
// the literal it asks about by its text; expectations follow Python's grammar.
#include <gtest/gtest.h>

#include "python/expression.h"

using namespace banjia::python;

namespace {

struct Module {
  std::string src;
  TokenStream ts;
  ModuleView view;
  explicit Module(std::string s) : src(std::move(s)), ts(tokenize(src)), view(build_view(src, ts)) {}
  // The sig index of the n-th significant token whose text is `text`.
  uint32_t find(std::string_view text, int n = 0) const {
    for (uint32_t i = 0; i < view.sig.size(); ++i)
      if (view.text(i) == text && n-- == 0) return i;
    throw std::runtime_error("no token " + std::string(text));
  }
  std::string text(SigRange r) const {
    return src.substr(view.tok(r.first).begin, view.tok(r.last).end - view.tok(r.first).begin);
  }
  Slot slot(std::string_view tok, int n = 0) const {
    uint32_t i = find(tok, n);
    return slot_of(view, {i, i});
  }
};

}  // namespace

TEST(ExpressionSlot, CallArgumentsByKeywordAndPosition) {
  Module m("f(a, 'x', device='cuda')\n");
  Slot s = m.slot("'cuda'");
  EXPECT_EQ(s.kind, SlotKind::call_argument);
  EXPECT_EQ(s.keyword, "device");
  EXPECT_EQ(m.view.text(s.open_sig), "(");
  Slot p = m.slot("'x'");
  EXPECT_EQ(p.kind, SlotKind::call_argument);
  EXPECT_EQ(p.position, 1);
  EXPECT_TRUE(p.keyword.empty());
}

TEST(ExpressionSlot, AssignmentTargetsIncludingAnnotatedAndChained) {
  Module m("device: str = 'cuda'\na = self.dev = 'cpu'\n");
  Slot s = m.slot("'cuda'");
  ASSERT_EQ(s.kind, SlotKind::assignment_value);
  ASSERT_EQ(s.targets.size(), 1u);
  EXPECT_EQ(m.text(s.targets[0]), "device");
  Slot c = m.slot("'cpu'");
  ASSERT_EQ(c.targets.size(), 2u);
  EXPECT_EQ(m.text(c.targets[0]), "a");
  EXPECT_EQ(m.text(c.targets[1]), "self.dev");
}

TEST(ExpressionSlot, ConditionalExpressionFillsTheWholeSlot) {
  Module m("x = torch.device('cuda' if ok() else 'cpu', 0)\n");
  Slot s = m.slot("'cuda'");
  EXPECT_EQ(s.kind, SlotKind::call_argument);
  EXPECT_EQ(s.position, 0);
  EXPECT_EQ(m.text(s.range), "'cuda' if ok() else 'cpu'");
}

TEST(ExpressionSlot, ParameterDefaultsOfDefAndLambda) {
  Module m("def f(x, device: str = 'cuda', *, y=1):\n    pass\ng = lambda d='npu': d\n");
  Slot s = m.slot("'cuda'");
  EXPECT_EQ(s.kind, SlotKind::parameter_default);
  EXPECT_EQ(s.keyword, "device");
  EXPECT_EQ(m.slot("'npu'").kind, SlotKind::parameter_default);
}

TEST(ExpressionSlot, DictValuesElementsSubscriptsAndReturns) {
  Module m("d = {'device': 'cuda', 'k': 1}\nt = ('a', 'b')\nv = m['key']\ndef f():\n    return 'ret'\n");
  Slot dv = m.slot("'cuda'");
  EXPECT_EQ(dv.kind, SlotKind::dict_value);
  EXPECT_EQ(m.text(dv.key), "'device'");
  Slot el = m.slot("'b'");
  EXPECT_EQ(el.kind, SlotKind::element);
  EXPECT_EQ(el.position, 1);
  EXPECT_EQ(m.slot("'key'").kind, SlotKind::subscript);
  EXPECT_EQ(m.slot("'ret'").kind, SlotKind::return_value);
}

TEST(ExpressionSlot, HeadersStatementsAndBrokenCode) {
  Module m("if d == 'cuda':\n    pass\n'doc'\nf(,'x' =)\n");
  EXPECT_EQ(m.slot("'cuda'").kind, SlotKind::header);
  EXPECT_EQ(m.slot("'doc'").kind, SlotKind::statement);
  Slot broken = m.slot("'x'");  // any kind, never a crash
  EXPECT_LE(broken.range.first, broken.range.last);
}

TEST(ExpressionLocate, ConditionBranchAndTest) {
  Module m("t = 'cuda' if 'cuda' in device else 'cpu'\n");
  uint32_t then_lit = m.find("'cuda'", 0), test_lit = m.find("'cuda'", 1);
  Slot s = slot_of(m.view, {then_lit, then_lit});
  auto a = locate(m.view, s.range, {then_lit, then_lit});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].part, Part::condition_then);
  EXPECT_EQ(m.text(a[0].other), "'cuda' in device");
  EXPECT_EQ(a[1].part, Part::whole);
  auto b = locate(m.view, s.range, {test_lit, test_lit});
  ASSERT_GE(b.size(), 2u);
  EXPECT_EQ(b[0].part, Part::condition_test);
  EXPECT_EQ(b[1].part, Part::compared);
  EXPECT_EQ(b[1].op, "in");
  EXPECT_TRUE(b[1].target_on_left);
  EXPECT_EQ(m.text(b[1].other), "device");
}

TEST(ExpressionLocate, ComparisonsInsideBooleanOperators) {
  Module m("ok = x.device.type not in ('cpu',) and d != 'cuda'\n");
  uint32_t lit = m.find("'cuda'");
  Slot s = slot_of(m.view, {lit, lit});
  auto steps = locate(m.view, s.range, {lit, lit});
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].part, Part::boolean_operand);
  EXPECT_EQ(steps[1].part, Part::compared);
  EXPECT_EQ(steps[1].op, "!=");
  EXPECT_EQ(m.text(steps[1].other), "d");
  uint32_t tup = m.find("(", 0);
  auto t = locate(m.view, s.range, {tup, static_cast<uint32_t>(m.view.match[tup])});
  ASSERT_GE(t.size(), 2u);
  EXPECT_EQ(t[1].op, "not in");
  EXPECT_EQ(m.text(t[1].other), "x.device.type");
}

TEST(ExpressionLocate, PartOfALargerAtomIsOther) {
  Module m("y = ('cuda:0',) + rest\n");
  uint32_t open = m.find("(");
  Slot s = slot_of(m.view, {open, static_cast<uint32_t>(m.view.match[open])});
  auto steps = locate(m.view, s.range, {open, static_cast<uint32_t>(m.view.match[open])});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].part, Part::other);
}

TEST(ExpressionPrimary, TrailersAndChains) {
  Module m("x = a.b(1)[2].c + 1\n");
  uint32_t a = m.find("a");
  EXPECT_EQ(m.text({a, primary_end(m.view, a, m.find("+") - 1)}), "a.b(1)[2].c");
  EXPECT_EQ(chain_last_name(m.view, {a, a + 2}), "b");
  EXPECT_EQ(chain_last_name(m.view, {a, a + 3}), "");
}
