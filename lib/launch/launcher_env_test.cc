#include "lib/launch/launcher_env.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace commbench {
namespace {

// An environment made of exactly these variables.
EnvLookup Env(const std::map<std::string, std::string> &vars) {
  return [vars](const char *name) -> const char * {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(LauncherEnvTest, EachLaunchersConvention) {
  struct Case {
    std::map<std::string, std::string> vars;
    std::string source;
    int rank, world, local_rank, local_world;
  };
  const Case cases[] = {
      {{{"RANK", "5"}, {"WORLD_SIZE", "16"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "4"}}, "torchrun", 5, 16, 1, 4},
      {{{"OMPI_COMM_WORLD_RANK", "3"},
        {"OMPI_COMM_WORLD_SIZE", "8"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
        {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}},
       "openmpi",
       3,
       8,
       1,
       2},
      {{{"PMI_RANK", "7"}, {"PMI_SIZE", "8"}, {"MPI_LOCALRANKID", "3"}, {"MPI_LOCALNRANKS", "4"}}, "mpich", 7, 8, 3, 4},
      {{{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "0"}}, "slurm", 2, 4, 0, -1},
      {{{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}}, "slurm", 2, 4, -1, -1},
  };
  for (const Case &c : cases) {
    StatusOr<LaunchPlace> p = DetectLaunchPlace(Env(c.vars));
    ASSERT_TRUE(p.ok()) << c.source << ": " << p.status().message();
    EXPECT_EQ(p->source, c.source);
    EXPECT_EQ(p->rank, c.rank) << c.source;
    EXPECT_EQ(p->world, c.world) << c.source;
    EXPECT_EQ(p->local_rank, c.local_rank) << c.source;
    EXPECT_EQ(p->local_world, c.local_world) << c.source;
  }
}

// mpirun or torchrun inside a Slurm allocation: the inner launcher's variables
// describe this process.
TEST(LauncherEnvTest, InnermostLauncherWins) {
  auto p = DetectLaunchPlace(Env(
      {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"OMPI_COMM_WORLD_RANK", "6"}, {"OMPI_COMM_WORLD_SIZE", "16"}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->source, "openmpi");
  EXPECT_EQ(p->rank, 6);
  p = DetectLaunchPlace(
      Env({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"RANK", "9"}, {"WORLD_SIZE", "16"}, {"LOCAL_RANK", "1"}}));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->source, "torchrun");
  EXPECT_EQ(p->rank, 9);
}

TEST(LauncherEnvTest, FlagsOverrideOrStandAlone) {
  auto p = DetectLaunchPlace(Env({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}}), {3, std::nullopt});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->rank, 3);
  EXPECT_EQ(p->world, 4);
  EXPECT_EQ(p->source, "slurm+flags");
  p = DetectLaunchPlace(Env({}), {0, 2});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->source, "flags");
  EXPECT_EQ(p->world, 2);
}

TEST(LauncherEnvTest, NoLauncherIsNotFound) {
  auto p = DetectLaunchPlace(Env({{"MASTER_ADDR", "10.0.0.1"}}));
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
  p = DetectLaunchPlace(Env({}), {1, std::nullopt});  // a rank without a world says nothing
  EXPECT_EQ(p.status().code(), StatusCode::kNotFound);
}

TEST(LauncherEnvTest, BadValuesNameTheVariable) {
  struct Case {
    std::map<std::string, std::string> vars;
    PlaceOverrides flags;
    std::string fragment;
  };
  const Case cases[] = {
      {{{"RANK", "x1"}, {"WORLD_SIZE", "4"}}, {}, "RANK='x1' is not a rank or size"},
      {{{"RANK", "1"}, {"WORLD_SIZE", "-4"}}, {}, "WORLD_SIZE='-4'"},
      {{{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "1.5"}}, {}, "SLURM_LOCALID='1.5'"},
      {{{"RANK", "1"}}, {}, "RANK is set but WORLD_SIZE is not"},
      {{{"OMPI_COMM_WORLD_SIZE", "4"}}, {}, "OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK is not"},
      {{{"PMI_RANK", "4"}, {"PMI_SIZE", "4"}}, {}, "rank 4 is outside a world of 4 (from mpich"},
      {{{"RANK", "99999999999999999999"}, {"WORLD_SIZE", "4"}}, {}, "RANK='99999999999999999999'"},
      {{}, {0, 0}, "world size 0"},
      {{{"RANK", "1"}, {"WORLD_SIZE", "4"}}, {7, std::nullopt}, "rank 7 is outside a world of 4 (from torchrun+flags"},
  };
  for (const Case &c : cases) {
    auto p = DetectLaunchPlace(Env(c.vars), c.flags);
    ASSERT_EQ(p.status().code(), StatusCode::kInvalidArgument) << c.fragment;
    EXPECT_NE(p.status().message().find(c.fragment), std::string::npos) << p.status().message();
  }
}

TEST(LauncherEnvTest, SlurmAllocationWithoutATaskIsNotARank) {
  EXPECT_EQ(DetectLaunchPlace(Env({{"SLURM_NTASKS", "8"}, {"SLURM_JOB_ID", "41"}})).status().code(),
            StatusCode::kNotFound);
}

TEST(LauncherEnvTest, RunIdFromTheLaunchersJob) {
  EXPECT_EQ(RunIdFromEnv(Env({{"SLURM_JOB_ID", "41"}, {"SLURM_STEP_ID", "3"}, {"MASTER_ADDR", "n1"}})), "slurm-41.3");
  EXPECT_EQ(RunIdFromEnv(Env({{"TORCHELASTIC_RUN_ID", "abc"}, {"SLURM_JOB_ID", "41"}, {"SLURM_STEP_ID", "3"}})),
            "torchrun-abc");
  EXPECT_EQ(RunIdFromEnv(Env({{"OMPI_MCA_ess_base_jobid", "123"}})), "ompi-123");
  EXPECT_EQ(RunIdFromEnv(Env({{"MASTER_ADDR", "10.0.0.1"}, {"MASTER_PORT", "29500"}})), "master-10.0.0.1.29500");
  EXPECT_EQ(RunIdFromEnv(Env({{"SLURM_JOB_ID", "41"}})), "");  // a job without a step: not one launch
  EXPECT_EQ(RunIdFromEnv(Env({})), "");
}

TEST(LauncherEnvTest, TorchStoreNoteOnlyWithoutRendezvous) {
  EXPECT_EQ(TorchStoreNote(Env({}), false), "");
  auto env = Env({{"MASTER_ADDR", "node0"}, {"MASTER_PORT", "29500"}});
  EXPECT_EQ(TorchStoreNote(env, true), "");
  std::string note = TorchStoreNote(env, false);
  EXPECT_NE(note.find("node0:29500"), std::string::npos) << note;
  EXPECT_NE(note.find("--rendezvous redis://"), std::string::npos) << note;
  EXPECT_NE(note.find("--rendezvous file:"), std::string::npos) << note;
}

}  // namespace
}  // namespace commbench
