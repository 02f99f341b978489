// The caveats of a "no growth" verdict: a CPU quota the ranks ran out of is named with its share of throttled
// periods and the loop cost's standard error; a quota they did not run out of, or one above their cores, is not.
// (Outside load's caveat: outside_load_test.)
#include "lib/diagnose/caveats.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/diagnose/test_util.h"

namespace commbench {
namespace diagnose {
namespace {

using nlohmann::json;
using testing::Diagnose;
using testing::MakeResult;
using testing::MakeSeries;
using testing::PointSpec;

// Four group counts, flat at 50 us with a standard error of `rel_se`, under `quota` CPUs throttled `share` of
// the periods (on 2 cores).
json Flat(double quota, double share, double rel_se = 0.18) {
  PointSpec base;
  base.cpu_quota = quota;
  base.throttled_share = share;
  base.rel_se = rel_se;
  return MakeResult({MakeSeries(base, {1, 2, 3, 4}, [](int) { return 50.0; })}, "commbench sweep --groups 1..4");
}

TEST(Caveats, AQuotaTheRanksRanOutOfIsNamedWithWhatToDo) {
  json d = Diagnose(Flat(0.5, 1.0));
  EXPECT_EQ(d["verdict"], "no growth");
  ASSERT_TRUE(d.contains("caveats")) << d.dump(1);
  EXPECT_EQ(d["caveats"],
            json::array({"CPU quota: the ranks' cgroup allows 0.5 CPU and ran out of it in up to 100% of its periods "
                         "during points G=1,2,3,4 (4 of the 4 points). Each time, the ranks stall for the rest of a "
                         "period, so a loop's cost varies from run to run (its standard error reached 18% of it "
                         "here): rerun with --repeats 5, or under a larger CPU limit, to tell a growth from that "
                         "noise."}));
}

TEST(Caveats, NoneWhereTheQuotaDidNotBind) {
  EXPECT_FALSE(Diagnose(Flat(0, -1)).contains("caveats"));     // no quota
  EXPECT_FALSE(Diagnose(Flat(0.5, 0.2)).contains("caveats"));  // rarely ran out
  EXPECT_FALSE(Diagnose(Flat(4, 1.0)).contains("caveats"));    // above the 2 cores: the cores bind first
}

}  // namespace
}  // namespace diagnose
}  // namespace commbench
