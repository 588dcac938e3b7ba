// LSTM / GRU / RNN against a naive per-element reference written here.
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include "support/simd_targets.h"

#include "support/op_test.h"
#include "tessera/base/half.h"

namespace tessera::test {
namespace {

enum class Cell { kRnn, kGru, kLstm };

struct Case {
  Cell cell = Cell::kLstm;
  int64_t seq = 3, batch = 2, input = 3, hidden = 4;
  std::string direction = "forward";
  std::vector<int32_t> lens;  // empty: all full
  bool bias = true, init_h = true, init_c = true, peep = false;
  bool linear_before_reset = false;
  bool input_forget = false;
  float clip = 0.f;
  int64_t layout = 0;
  float x_scale = 1.f;  // large values drive the gates into saturation
  // W and R as initializers: LSTM then runs the packed, fused recurrence.
  bool constant_weights = false;
  int threads = 1;
};

int Gates(Cell c) { return c == Cell::kRnn ? 1 : c == Cell::kGru ? 3 : 4; }

std::vector<float> Random(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

double Sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

struct Data {
  std::vector<float> x, w, r, b, h0, c0, p;
};

// Naive reference, all tensors in layout 0. Outputs Y [seq, D, batch, H], Y_h, Y_c [D, batch, H].
void Reference(const Case& c, const Data& d, std::vector<float>* y, std::vector<float>* yh, std::vector<float>* yc) {
  const int64_t D = c.direction == "bidirectional" ? 2 : 1, H = c.hidden, G = Gates(c.cell), I = c.input;
  y->assign(static_cast<size_t>(c.seq * D * c.batch * H), 0.f);
  yh->assign(static_cast<size_t>(D * c.batch * H), 0.f);
  yc->assign(static_cast<size_t>(D * c.batch * H), 0.f);
  auto clip = [&](double v) { return c.clip > 0 ? std::min<double>(c.clip, std::max<double>(-c.clip, v)) : v; };
  for (int64_t dir = 0; dir < D; ++dir) {
    bool rev = c.direction == "reverse" || dir == 1;
    for (int64_t b = 0; b < c.batch; ++b) {
      int64_t len = c.lens.empty() ? c.seq : c.lens[static_cast<size_t>(b)];
      std::vector<double> h(H), cs(H);
      for (int64_t j = 0; j < H; ++j) {
        h[j] = c.init_h ? d.h0[(dir * c.batch + b) * H + j] : 0;
        cs[j] = c.init_c && c.cell == Cell::kLstm ? d.c0[(dir * c.batch + b) * H + j] : 0;
      }
      for (int64_t s = 0; s < len; ++s) {
        int64_t t = rev ? len - 1 - s : s;
        auto xw = [&](int64_t g) {  // row g of W . x_t + Wb
          double a = c.bias ? d.b[dir * 2 * G * H + g] : 0;
          for (int64_t i = 0; i < I; ++i) a += d.w[(dir * G * H + g) * I + i] * d.x[(t * c.batch + b) * I + i];
          return a;
        };
        auto rh = [&](int64_t g, const std::vector<double>& hv) {  // row g of R . h (no bias)
          double a = 0;
          for (int64_t i = 0; i < H; ++i) a += d.r[(dir * G * H + g) * H + i] * hv[i];
          return a;
        };
        auto rb = [&](int64_t g) { return c.bias ? d.b[dir * 2 * G * H + G * H + g] : 0.0; };
        std::vector<double> nh(H), nc(H);
        if (c.cell == Cell::kRnn) {
          for (int64_t j = 0; j < H; ++j) nh[j] = std::tanh(clip(xw(j) + rh(j, h) + rb(j)));
        } else if (c.cell == Cell::kGru) {
          std::vector<double> z(H), rr(H);
          for (int64_t j = 0; j < H; ++j) {
            z[j] = Sig(clip(xw(j) + rh(j, h) + rb(j)));
            rr[j] = Sig(clip(xw(H + j) + rh(H + j, h) + rb(H + j)));
          }
          std::vector<double> rhv(H);
          for (int64_t j = 0; j < H; ++j) rhv[j] = rr[j] * h[j];
          for (int64_t j = 0; j < H; ++j) {
            double pre = c.linear_before_reset ? xw(2 * H + j) + rr[j] * (rh(2 * H + j, h) + rb(2 * H + j))
                                               : xw(2 * H + j) + rh(2 * H + j, rhv) + rb(2 * H + j);
            double hh = std::tanh(clip(pre));
            nh[j] = (1 - z[j]) * hh + z[j] * h[j];
          }
        } else {
          for (int64_t j = 0; j < H; ++j) {
            double pi = c.peep ? d.p[dir * 3 * H + j] : 0, po = c.peep ? d.p[dir * 3 * H + H + j] : 0,
                   pf = c.peep ? d.p[dir * 3 * H + 2 * H + j] : 0;
            double ig = Sig(clip(xw(j) + rh(j, h) + rb(j) + pi * cs[j]));
            double fg = c.input_forget ? 1 - ig : Sig(clip(xw(2 * H + j) + rh(2 * H + j, h) + rb(2 * H + j) + pf * cs[j]));
            double cg = std::tanh(clip(xw(3 * H + j) + rh(3 * H + j, h) + rb(3 * H + j)));
            nc[j] = fg * cs[j] + ig * cg;
            double og = Sig(clip(xw(H + j) + rh(H + j, h) + rb(H + j) + po * nc[j]));
            nh[j] = og * std::tanh(nc[j]);
          }
          cs = nc;
        }
        h = nh;
        for (int64_t j = 0; j < H; ++j) (*y)[((t * D + dir) * c.batch + b) * H + j] = static_cast<float>(h[j]);
      }
      for (int64_t j = 0; j < H; ++j) {
        (*yh)[(dir * c.batch + b) * H + j] = static_cast<float>(h[j]);
        (*yc)[(dir * c.batch + b) * H + j] = static_cast<float>(cs[j]);
      }
    }
  }
}

// [a, b, rest] -> [b, a, rest]
std::vector<float> Swap01(const std::vector<float>& v, int64_t a, int64_t b, int64_t rest) {
  std::vector<float> o(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < rest; ++k) o[(j * a + i) * rest + k] = v[(i * b + j) * rest + k];
  return o;
}

void RunCase(const Case& c, int64_t opset = 14) {
  std::mt19937 rng(42);
  const int64_t D = c.direction == "bidirectional" ? 2 : 1, H = c.hidden, G = Gates(c.cell);
  Data d;
  d.x = Random(static_cast<size_t>(c.seq * c.batch * c.input), rng);
  for (auto& v : d.x) v *= c.x_scale;
  d.w = Random(static_cast<size_t>(D * G * H * c.input), rng);
  d.r = Random(static_cast<size_t>(D * G * H * H), rng);
  d.b = Random(static_cast<size_t>(D * 2 * G * H), rng);
  d.h0 = Random(static_cast<size_t>(D * c.batch * H), rng);
  d.c0 = Random(static_cast<size_t>(D * c.batch * H), rng);
  d.p = Random(static_cast<size_t>(D * 3 * H), rng);
  std::vector<float> y, yh, yc;
  Reference(c, d, &y, &yh, &yc);

  const char* op = c.cell == Cell::kRnn ? "RNN" : c.cell == Cell::kGru ? "GRU" : "LSTM";
  OpTest t(op, opset);
  t.Attr("hidden_size", H).Attr("direction", c.direction);
  if (c.layout) t.Attr("layout", c.layout);
  if (c.clip > 0) t.Attr("clip", c.clip);
  if (c.linear_before_reset) t.Attr("linear_before_reset", int64_t{1});
  if (c.input_forget) t.Attr("input_forget", int64_t{1});
  const bool l1 = c.layout == 1;
  t.Input("X", l1 ? T_<float>(Swap01(d.x, c.seq, c.batch, c.input), {c.batch, c.seq, c.input})
                  : T_<float>(d.x, {c.seq, c.batch, c.input}));
  if (c.constant_weights) {
    t.ConstantInput("W", T_<float>(d.w, {D, G * H, c.input}));
    t.ConstantInput("R", T_<float>(d.r, {D, G * H, H}));
  } else {
    t.Input("W", T_<float>(d.w, {D, G * H, c.input}));
    t.Input("R", T_<float>(d.r, {D, G * H, H}));
  }
  auto state = [&](const std::vector<float>& s) {
    return l1 ? T_<float>(Swap01(s, D, c.batch, H), {c.batch, D, H}) : T_<float>(s, {D, c.batch, H});
  };
  std::vector<std::pair<std::string, std::optional<Tensor>>> opt;
  opt.emplace_back("B", c.bias ? std::optional<Tensor>(T_<float>(d.b, {D, 2 * G * H})) : std::nullopt);
  opt.emplace_back("sequence_lens",
                   c.lens.empty() ? std::nullopt : std::optional<Tensor>(T_<int32_t>(c.lens, {c.batch})));
  opt.emplace_back("initial_h", c.init_h ? std::optional<Tensor>(state(d.h0)) : std::nullopt);
  if (c.cell == Cell::kLstm) {
    opt.emplace_back("initial_c", c.init_c ? std::optional<Tensor>(state(d.c0)) : std::nullopt);
    opt.emplace_back("P", c.peep ? std::optional<Tensor>(T_<float>(d.p, {D, 3 * H})) : std::nullopt);
  }
  size_t last = 0;
  for (size_t i = 0; i < opt.size(); ++i)
    if (opt[i].second) last = i + 1;
  for (size_t i = 0; i < last; ++i) {
    if (opt[i].second)
      t.Input(opt[i].first, *opt[i].second);
    else
      t.OmittedInput();
  }
  if (l1) {
    // [seq, D, batch, H] -> [batch, seq, D, H]
    std::vector<float> y1(y.size());
    for (int64_t s = 0; s < c.seq; ++s)
      for (int64_t dd = 0; dd < D; ++dd)
        for (int64_t b = 0; b < c.batch; ++b)
          for (int64_t j = 0; j < H; ++j)
            y1[((b * c.seq + s) * D + dd) * H + j] = y[((s * D + dd) * c.batch + b) * H + j];
    t.Output("Y", T_<float>(y1, {c.batch, c.seq, D, H}));
  } else {
    t.Output("Y", T_<float>(y, {c.seq, D, c.batch, H}));
  }
  t.Output("Y_h", state(yh));
  if (c.cell == Cell::kLstm) t.Output("Y_c", state(yc));
  t.Tolerance(1e-4, 1e-5);
  t.Threads(c.threads);
  t.Run();
}

TEST(LstmTest, ForwardDefaults) { RunCase(Case{}); }
TEST(LstmTest, ReverseNoBiasNoState) {
  Case c;
  c.direction = "reverse";
  c.bias = c.init_h = c.init_c = false;
  RunCase(c);
}
TEST(LstmTest, BidirectionalPeepholesSeqLens) {
  Case c;
  c.direction = "bidirectional";
  c.peep = true;
  c.seq = 4;
  c.batch = 3;
  c.lens = {4, 2, 0};
  RunCase(c);
}
TEST(LstmTest, ClipAndInputForget) {
  Case c;
  c.clip = 0.5f;
  c.input_forget = true;
  RunCase(c);
}
TEST(LstmTest, BatchMajorLayout) {
  Case c;
  c.layout = 1;
  c.direction = "bidirectional";
  c.lens = {1, 3};
  RunCase(c);
}
TEST(LstmTest, SaturatedGates) {
  Case c;
  c.x_scale = 40.f;
  c.seq = 5;
  RunCase(c);
  c.cell = Cell::kGru;
  RunCase(c);
}

// The packed recurrence (constant W and R): hidden sizes off the 16-unit
// block, batches off its 4-row groups, every optional input and attribute,
// and two threads sharing each step's blocks.
TEST(LstmTest, PackedRecurrenceMatchesReference) {
  for (int64_t hidden : {4, 20, 33}) {
    for (int64_t batch : {1, 5}) {
      SCOPED_TRACE("hidden " + std::to_string(hidden) + " batch " + std::to_string(batch));
      Case c;
      c.constant_weights = true;
      c.hidden = hidden;
      c.batch = batch;
      c.input = 7;
      RunCase(c);
      c.direction = "bidirectional";
      c.peep = true;
      c.lens.assign(static_cast<size_t>(batch), 3);
      c.lens[0] = 1;
      c.lens.back() = 0;
      RunCase(c);
      c.direction = "reverse";
      c.clip = 0.5f;
      c.input_forget = true;
      c.init_c = false;
      c.lens.clear();
      c.layout = 1;
      RunCase(c);
    }
  }
}
TEST(LstmTest, PackedRecurrenceOnTwoThreads) {
  for (int64_t batch : {1, 6}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Case c;
    c.constant_weights = true;
    c.threads = 2;
    c.hidden = 130;  // enough work per step to split, last block partial
    c.batch = batch;
    c.seq = 5;
    c.input = 9;
    c.direction = "bidirectional";
    c.peep = true;
    RunCase(c);
  }
}
// Highway compiles the fused kernel for several x86 targets; each must give
// the same answer (the machine running the tests picks only one of them).
TEST(LstmTest, PackedRecurrenceOnEverySimdTarget) {
  test::OnEverySimdTarget([] {
    Case c;
    c.constant_weights = true;
    c.hidden = 20;
    c.batch = 5;
    c.direction = "bidirectional";
    c.peep = true;
    c.lens = {3, 1, 2, 3, 0};
    RunCase(c);
  });
}
TEST(LstmTest, PackedRecurrenceSaturatedGates) {
  Case c;
  c.constant_weights = true;
  c.x_scale = 40.f;
  c.hidden = 17;
  RunCase(c);
}
TEST(LstmTest, PackedWeightsRejectWrongInputSize) {
  OpTest t("LSTM", 14);
  t.Attr("hidden_size", int64_t{2});
  t.Input("X", T_<float>(std::vector<float>(2 * 4, 0.1f), {2, 1, 4}))
      .ConstantInput("W", T_<float>(std::vector<float>(8 * 3, 0.5f), {1, 8, 3}))
      .ConstantInput("R", T_<float>(std::vector<float>(8 * 2, 0.5f), {1, 8, 2}));
  t.Output("Y", T_<float>(std::vector<float>(4, 0.f), {2, 1, 1, 2}));
  t.ExpectFailure("input size 4");
}

TEST(LstmTest, ZeroBatchAndZeroSteps) {
  for (bool constant : {false, true})  // constant: the packed recurrence
    for (int64_t batch : {0, 2}) {
      SCOPED_TRACE(std::string(constant ? "constant" : "fed") + " weights, batch " + std::to_string(batch));
      int64_t seq = batch == 0 ? 2 : 0;
      OpTest t("LSTM", 14);
      t.Attr("hidden_size", int64_t{2});
      Tensor w = T_<float>(std::vector<float>(8 * 3, 0.5f), {1, 8, 3});
      Tensor r = T_<float>(std::vector<float>(8 * 2, 0.5f), {1, 8, 2});
      t.Input("X", T_<float>({}, {seq, batch, 3}));
      if (constant) {
        t.ConstantInput("W", w).ConstantInput("R", r);
      } else {
        t.Input("W", w).Input("R", r);
      }
      t.Output("Y", T_<float>({}, {seq, 1, batch, 2}))
          .Output("Y_h", T_<float>(std::vector<float>(static_cast<size_t>(batch * 2), 0.f), {1, batch, 2}));
      t.Run();
    }
}

TEST(GruTest, Forward) {
  Case c;
  c.cell = Cell::kGru;
  RunCase(c);
}
TEST(GruTest, LinearBeforeResetBidirectional) {
  Case c;
  c.cell = Cell::kGru;
  c.linear_before_reset = true;
  c.direction = "bidirectional";
  c.lens = {2, 3};
  RunCase(c);
}
TEST(GruTest, ReverseLayout1Clip) {
  Case c;
  c.cell = Cell::kGru;
  c.direction = "reverse";
  c.layout = 1;
  c.clip = 0.3f;
  RunCase(c);
}
TEST(RnnTest, ForwardAndBidirectional) {
  Case c;
  c.cell = Cell::kRnn;
  RunCase(c);
  c.direction = "bidirectional";
  c.lens = {3, 1};
  RunCase(c);
}
TEST(RnnTest, Opset7NoLayout) {
  Case c;
  c.cell = Cell::kRnn;
  c.init_h = false;
  RunCase(c, 7);
}

TEST(RnnTest, ActivationsWithAlpha) {
  // Ht = LeakyRelu(alpha=0.5)(x*W + h*R), hidden 1, input 1, 2 steps.
  OpTest t("RNN", 14);
  t.Attr("hidden_size", int64_t{1})
      .Attr("activations", std::vector<std::string>{"LeakyRelu"})
      .Attr("activation_alpha", std::vector<float>{0.5f});
  t.Input("X", T_<float>({-2.f, 1.f}, {2, 1, 1}))
      .Input("W", T_<float>({1.f}, {1, 1, 1}))
      .Input("R", T_<float>({2.f}, {1, 1, 1}));
  // h1 = leaky(-2) = -1; h2 = leaky(1 + 2*-1 = -1) = -0.5
  t.Output("Y", T_<float>({-1.f, -0.5f}, {2, 1, 1, 1})).Output("Y_h", T_<float>({-0.5f}, {1, 1, 1}));
  t.Run();
}

TEST(RnnTest, OnlyYhRequested) {
  OpTest t("RNN", 14);
  t.Attr("hidden_size", int64_t{1}).Attr("activations", std::vector<std::string>{"Relu"});
  t.Input("X", T_<float>({1.f, 2.f}, {2, 1, 1}))
      .Input("W", T_<float>({1.f}, {1, 1, 1}))
      .Input("R", T_<float>({1.f}, {1, 1, 1}));
  t.OmittedOutput().Output("Y_h", T_<float>({3.f}, {1, 1, 1}));
  t.Run();
}

TEST(RnnTest, DoubleType) {
  OpTest t("RNN", 14);
  t.Attr("hidden_size", int64_t{1}).Attr("activations", std::vector<std::string>{"Affine"})
      .Attr("activation_alpha", std::vector<float>{2.f}).Attr("activation_beta", std::vector<float>{1.f});
  t.Input("X", T_<double>({1.0}, {1, 1, 1}))
      .Input("W", T_<double>({1.0}, {1, 1, 1}))
      .Input("R", T_<double>({1.0}, {1, 1, 1}));
  t.Output("Y", T_<double>({3.0}, {1, 1, 1, 1}));
  t.Run();
}

TEST(RnnTest, Float16) {
  auto h = [](std::vector<float> v, Shape s) {
    std::vector<Float16> o;
    for (float f : v) o.push_back(Float16{FloatToHalf(f)});
    return T_<Float16>(o, std::move(s));
  };
  OpTest t("RNN", 14);
  t.Attr("hidden_size", int64_t{1}).Attr("activations", std::vector<std::string>{"Relu"});
  t.Input("X", h({1.f, 2.f}, {2, 1, 1})).Input("W", h({1.f}, {1, 1, 1})).Input("R", h({1.f}, {1, 1, 1}));
  t.Output("Y", h({1.f, 3.f}, {2, 1, 1, 1}));
  t.Run();
}

TEST(RnnTest, BadShapesFail) {
  OpTest t("LSTM", 14);
  t.Attr("hidden_size", int64_t{2});
  t.Input("X", T_<float>({1.f, 2.f}, {1, 1, 2}))
      .Input("W", T_<float>(std::vector<float>(8 * 3, 0.f), {1, 8, 3}))
      .Input("R", T_<float>(std::vector<float>(16, 0.f), {1, 8, 2}));
  t.Output("Y", T_<float>({0.f, 0.f}, {1, 1, 1, 2}));
  t.ExpectFailure("W has shape");
}

TEST(RnnTest, BadSequenceLensFail) {
  OpTest t("RNN", 14);
  t.Attr("hidden_size", int64_t{1});
  t.Input("X", T_<float>({1.f}, {1, 1, 1}))
      .Input("W", T_<float>({1.f}, {1, 1, 1}))
      .Input("R", T_<float>({1.f}, {1, 1, 1}))
      .OmittedInput()
      .Input("sequence_lens", T_<int32_t>({5}, {1}));
  t.Output("Y", T_<float>({0.f}, {1, 1, 1, 1}));
  t.ExpectFailure("sequence_lens");
}

TEST(RnnTest, UnknownActivationFails) {
  OpTest t("RNN", 14);
  t.Attr("hidden_size", int64_t{1}).Attr("activations", std::vector<std::string>{"Swish"});
  t.Input("X", T_<float>({1.f}, {1, 1, 1}))
      .Input("W", T_<float>({1.f}, {1, 1, 1}))
      .Input("R", T_<float>({1.f}, {1, 1, 1}));
  t.Output("Y", T_<float>({0.f}, {1, 1, 1, 1}));
  t.ExpectFailure("Swish");
}

}  // namespace
}  // namespace tessera::test
