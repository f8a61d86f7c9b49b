// Self-checks of the AMO contract probes (amo_contract_probes.hpp): a probe
// that could not tell the asserted fact from another value would be a test
// that cannot fail.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "amo_contract_probes.hpp"

namespace {

using namespace pto::test::amo;

// InstructionContractAtomicOperation_<MN>(): every two operations give
// different memory on at least one probe pair, at every access width.
TEST(AmoContractProbe, OperationPairsSeparateTheOperations) {
  for (const unsigned size : {1u, 2u, 4u, 8u}) {
    std::vector<std::vector<Word>> results;
    for (const AmoOp op : kAllAmoOps) {
      std::vector<Word> r;
      for (const auto& [old, operand] : kOperationPairs) r.push_back(atomic_value(op, old, operand, size));
      results.push_back(r);
    }
    for (std::size_t a = 0; a < results.size(); ++a) {
      for (std::size_t b = a + 1; b < results.size(); ++b) {
        EXPECT_NE(results[a], results[b]) << "operations " << a << " and " << b << " at width " << size;
      }
    }
  }
}

// AtomicSizeBytes: with the positive pattern, each operation changes every
// byte of its width for one of the three size operands.
TEST(AmoContractProbe, SizeOperandsChangeEveryByteForEveryOperation) {
  for (const unsigned size : {1u, 2u, 4u, 8u}) {
    for (const AmoOp op : kAllAmoOps) {
      Word changed = 0;
      for (const Word operand : kSizeOperands) changed |= atomic_value(op, kPositivePattern, operand, size) ^ kPositivePattern;
      for (unsigned k = 0; k < size; ++k) {
        EXPECT_NE((changed >> (8 * k)) & 0xFF, 0u) << "byte " << k << " of width " << size;
      }
    }
  }
}

}  // namespace
