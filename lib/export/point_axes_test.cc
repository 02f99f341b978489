#include "lib/export/point_axes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace commbench::exporting {
namespace {

TEST(PointAxesTest, IsoTimeIsSecondsSinceTheEpoch) {
  double s = 0;
  ASSERT_TRUE(ParseIsoTime("2026-11-21T09:06:26Z", &s));
  EXPECT_DOUBLE_EQ(s, 1795251986);  // date -u -d 2026-11-21T09:06:26Z +%s
  ASSERT_TRUE(ParseIsoTime("1970-01-01T00:00:01.5Z", &s));
  EXPECT_DOUBLE_EQ(s, 1.5);
  EXPECT_FALSE(ParseIsoTime("2026-11-21 09:06:26", &s));
  EXPECT_FALSE(ParseIsoTime("2026-11-21T09:06:26+01:00", &s));
  EXPECT_FALSE(ParseIsoTime("2026-11-21T09:06:26Zjunk", &s));
}

TEST(PointAxesTest, NumbersReadBackExactly) {
  for (double v : {0.1, 3.5e-05, 1e300, 123456789.125, -2.0}) EXPECT_EQ(std::stod(Number(v, "x")), v);
  EXPECT_EQ(Number(std::nan(""), "NaN"), "NaN");
  EXPECT_EQ(Number(INFINITY, ""), "");
}

TEST(PointAxesTest, EveryAxisOnceInAFixedOrder) {
  Point p;
  p.backend = "gloo";
  p.groups = 3;
  p.bytes = 400;
  const std::vector<Field> fields = AxisFields(p);
  std::set<std::string> names;
  for (const Field& f : fields) EXPECT_TRUE(names.insert(f.first).second) << f.first;
  ASSERT_GE(fields.size(), 3u);
  EXPECT_EQ(fields[0], Field("backend", "gloo"));
  EXPECT_EQ(fields[5], Field("size_bytes", "400"));
  EXPECT_EQ(fields[7], Field("groups", "3"));
  EXPECT_EQ(fields[9], Field("world", "6"));
}

}  // namespace
}  // namespace commbench::exporting
