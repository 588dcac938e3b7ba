#include <string>

#include "support/op_test.h"

namespace tessera::test {
namespace {

using S = std::string;

TEST(StringsTest, NormalizerUpperLatin1AndGreek) {
  OpTest("StringNormalizer", 10)
      .Attr("case_change_action", S("UPPER"))
      .Input("x", T_<S>({"straße", "élan", "ünïcode", "αβγ", "ÿ"}, {5}))
      .Output("y", T_<S>({"STRAßE", "ÉLAN", "ÜNÏCODE", "ΑΒΓ", "Ÿ"}, {5}))
      .Run();
}

TEST(StringsTest, NormalizerLowerCyrillicAndLatinExtended) {
  OpTest("StringNormalizer", 10)
      .Attr("case_change_action", S("LOWER"))
      .Input("x", T_<S>({"ПРИВЕТ", "ŁÓDŹ", "ÀÉÎ"}, {1, 3}))
      .Output("y", T_<S>({"привет", "łódź", "àéî"}, {1, 3}))
      .Run();
}

TEST(StringsTest, NormalizerCaseInsensitiveStopwords) {
  OpTest("StringNormalizer", 10)
      .Attr("case_change_action", S("LOWER"))
      .Attr("stopwords", std::vector<S>{"the", "ÉTÉ"})
      .Input("x", T_<S>({"The", "Quick", "THE", "été"}, {4}))
      .Output("y", T_<S>({"quick"}, {1}))
      .Run();
}

TEST(StringsTest, NormalizerAllDroppedTwoDim) {
  OpTest("StringNormalizer", 10)
      .Attr("is_case_sensitive", int64_t{1})
      .Attr("stopwords", std::vector<S>{"a"})
      .Input("x", T_<S>({"a", "a"}, {1, 2}))
      .Output("y", T_<S>({""}, {1, 1}))
      .Run();
}

TEST(StringsTest, NormalizerBadShapeFails) {
  OpTest("StringNormalizer", 10)
      .Input("x", T_<S>({"a", "b", "c", "d"}, {2, 2}))
      .Output("y", T_<S>({""}, {1}))
      .ExpectFailure("shape");
}

TEST(StringsTest, NormalizerBadActionFails) {
  OpTest("StringNormalizer", 10)
      .Attr("case_change_action", S("TITLE"))
      .Input("x", T_<S>({"a"}, {1}))
      .Output("y", T_<S>({""}, {1}))
      .ExpectFailure("case_change_action");
}

TEST(StringsTest, ConcatBroadcastTwoWays) {
  OpTest("StringConcat", 20)
      .Input("x", T_<S>({"a", "b"}, {2, 1}))
      .Input("y", T_<S>({"1", "2", "3"}, {3}))
      .Output("z", T_<S>({"a1", "a2", "a3", "b1", "b2", "b3"}, {2, 3}))
      .Run();
}

TEST(StringsTest, ConcatEmptyTensor) {
  OpTest("StringConcat", 20)
      .Input("x", T_<S>({}, {0, 2}))
      .Input("y", T_<S>({"p", "q"}, {2}))
      .Output("z", T_<S>({}, {0, 2}))
      .Run();
}

TEST(StringsTest, ConcatIncompatibleShapesFail) {
  OpTest("StringConcat", 20)
      .Input("x", T_<S>({"a", "b"}, {2}))
      .Input("y", T_<S>({"1", "2", "3"}, {3}))
      .Output("z", T_<S>({""}, {1}))
      .ExpectFailure("");
}

TEST(StringsTest, SplitDelimiterMaxsplit) {
  OpTest("StringSplit", 20)
      .Attr("delimiter", S(","))
      .Attr("maxsplit", int64_t{1})
      .Input("x", T_<S>({"a,b,c", "", "x"}, {3}))
      .Output("y", T_<S>({"a", "b,c", "", "", "x", ""}, {3, 2}))
      .Output("z", T_<int64_t>({2, 1, 1}, {3}))
      .Run();
}

TEST(StringsTest, SplitMultiCharDelimiter) {
  OpTest("StringSplit", 20)
      .Attr("delimiter", S("::"))
      .Input("x", T_<S>({"a::b:::c"}, {1}))
      .Output("y", T_<S>({"a", "b", ":c"}, {1, 3}))
      .Output("z", T_<int64_t>({3}, {1}))
      .Run();
}

TEST(StringsTest, SplitWhitespaceAllBlank) {
  OpTest("StringSplit", 20)
      .Input("x", T_<S>({"   ", " a\tb "}, {2}))
      .Output("y", T_<S>({"", "", "a", "b"}, {2, 2}))
      .Output("z", T_<int64_t>({0, 2}, {2}))
      .Run();
}

TEST(StringsTest, SplitWhitespaceMaxsplitKeepsRemainder) {
  OpTest("StringSplit", 20)
      .Attr("maxsplit", int64_t{1})
      .Input("x", T_<S>({"  a b  c "}, {1}))
      .Output("y", T_<S>({"a", "b  c "}, {1, 2}))
      .Output("z", T_<int64_t>({2}, {1}))
      .Run();
}

TEST(StringsTest, RegexInlineCaseFlag) {
  OpTest("RegexFullMatch", 20)
      .Attr("pattern", S("(?i)ab+c"))
      .Input("x", T_<S>({"ABBC", "abd", "abc", "xabc"}, {2, 2}))
      .Output("y", T_<bool>({true, false, true, false}, {2, 2}))
      .Run();
}

TEST(StringsTest, RegexNamedGroupAndAnchors) {
  OpTest("RegexFullMatch", 20)
      .Attr("pattern", S("\\A(?P<year>[0-9]{4})-[0-9]{2}\\z"))
      .Input("x", T_<S>({"2024-01", "24-01", "2024-011"}, {3}))
      .Output("y", T_<bool>({true, false, false}, {3}))
      .Run();
}

TEST(StringsTest, RegexLongInputDoesNotOverflow) {
  OpTest("RegexFullMatch", 20)
      .Attr("pattern", S("(a|b)*c"))
      .Input("x", T_<S>({std::string(200000, 'a') + "c", std::string(200000, 'b')}, {2}))
      .Output("y", T_<bool>({true, false}, {2}))
      .Run();
}

TEST(StringsTest, RegexInvalidPatternFails) {
  OpTest("RegexFullMatch", 20)
      .Attr("pattern", S("(abc"))
      .Input("x", T_<S>({"abc"}, {1}))
      .Output("y", T_<bool>({false}, {1}))
      .ExpectFailure("invalid regex pattern");
}

TEST(StringsTest, RegexBackreferenceRejected) {
  OpTest("RegexFullMatch", 20)
      .Attr("pattern", S("(a)\\1"))
      .Input("x", T_<S>({"aa"}, {1}))
      .Output("y", T_<bool>({false}, {1}))
      .ExpectFailure("backreferences");
}

TEST(StringsTest, TfIdfStringsTfIdfWeights) {
  OpTest("TfIdfVectorizer", 9)
      .Attr("mode", S("TFIDF"))
      .Attr("min_gram_length", int64_t{1})
      .Attr("max_gram_length", int64_t{2})
      .Attr("max_skip_count", int64_t{0})
      .Attr("ngram_counts", std::vector<int64_t>{0, 2})
      .Attr("ngram_indexes", std::vector<int64_t>{0, 1, 2})
      .Attr("pool_strings", std::vector<S>{"a", "b", "a", "b"})
      .Attr("weights", std::vector<float>{0.5f, 2.0f, 3.0f})
      .Input("x", T_<S>({"a", "b", "a", "b", "c"}, {5}))
      .Output("y", T_<float>({1.0f, 4.0f, 6.0f}, {3}))
      .Run();
}

TEST(StringsTest, TfIdfIdfModeBatch) {
  OpTest("TfIdfVectorizer", 9)
      .Attr("mode", S("IDF"))
      .Attr("min_gram_length", int64_t{1})
      .Attr("max_gram_length", int64_t{1})
      .Attr("max_skip_count", int64_t{3})
      .Attr("ngram_counts", std::vector<int64_t>{0})
      .Attr("ngram_indexes", std::vector<int64_t>{1, 0})
      .Attr("pool_int64s", std::vector<int64_t>{7, 9})
      .Attr("weights", std::vector<float>{0.25f, 4.0f})
      .Input("x", T_<int64_t>({7, 7, 7, 1, 9, 9}, {2, 3}))
      .Output("y", T_<float>({0.0f, 0.25f, 4.0f, 0.0f}, {2, 2}))
      .Run();
}

TEST(StringsTest, TfIdfWrongInputTypeFails) {
  OpTest("TfIdfVectorizer", 9)
      .Attr("mode", S("TF"))
      .Attr("min_gram_length", int64_t{1})
      .Attr("max_gram_length", int64_t{1})
      .Attr("max_skip_count", int64_t{0})
      .Attr("ngram_counts", std::vector<int64_t>{0})
      .Attr("ngram_indexes", std::vector<int64_t>{0})
      .Attr("pool_int64s", std::vector<int64_t>{7})
      .Input("x", T_<S>({"7"}, {1}))
      .Output("y", T_<float>({0.0f}, {1}))
      .ExpectFailure("int32 or int64");
}

}  // namespace
}  // namespace tessera::test
