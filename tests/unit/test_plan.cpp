#include <gtest/gtest.h>

#include "bench/errors.h"
#include "bench/plan.h"

namespace collbench {

TEST(Plan, RowsPerOpDtypeAndSizeWithNcclTestsCounts) {
  RunOptions o;
  o.ops = {Coll::AllReduce, Coll::AllGather};
  o.min_bytes = 8;
  o.max_bytes = 1024;
  o.factor = 4;
  const Plan p = make_plan(o, 4);
  ASSERT_EQ(p.rows.size(), 8u);  // 8, 32, 128, 512 for each op
  EXPECT_EQ(p.case_count(), 16u);
  EXPECT_EQ(p.rows[4].coll, Coll::AllGather);
  EXPECT_EQ(p.rows[4].bytes, 0u);     // 2 floats over 4 ranks
  EXPECT_EQ(p.rows[7].bytes, 512u);   // 32 floats per rank... 128 floats total
  EXPECT_EQ(p.rows[7].counts.param, 32u);
  EXPECT_EQ(p.rows[0].root, -1);
  ASSERT_EQ(p.notes.size(), 1u);
  EXPECT_NE(p.notes[0].find("all_gather"), std::string::npos);
  EXPECT_EQ(p.max_send_bytes, 512u);
  EXPECT_EQ(p.max_recv_bytes, 512u);
}

TEST(Plan, RefusesImpossibleSweeps) {
  RunOptions o;
  o.min_bytes = 1024;
  o.max_bytes = 8;
  EXPECT_THROW(make_plan(o, 2), UsageError);
  o.max_bytes = 4096;
  o.factor = 1.0;
  EXPECT_THROW(make_plan(o, 2), UsageError);
  o.factor = 2;
  o.root = 2;
  EXPECT_THROW(make_plan(o, 2), UsageError);
  o.root = 1;
  EXPECT_NO_THROW(make_plan(o, 2));
}

}  // namespace collbench
