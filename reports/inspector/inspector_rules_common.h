// Helpers the Inspector rules (inspector_rules*.cpp) share: the job's span, its hosts, a
// communicator's hosts, the "rests on" clause every message ends with, and a process's job rank.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "reports/inspector/inspector_job.h"

namespace collbench::report::inspector::detail {

double minutes(std::uint64_t first_us, std::uint64_t last_us);
std::uint64_t joined(const Job& job);
std::set<std::string> hosts(const Job& job);
std::set<std::string> comm_hosts(const Job& job, const Comm& c);
// "rests on 3,000 joined collectives of 24 communicators, 64 ranks, 3.3 minutes"
std::string rests_on(std::uint64_t collectives, std::size_t comms, std::size_t ranks, double mins);
// The rank number a process goes by: its rank in the largest communicator it is in (the world's,
// in a job that has one).
int job_rank(const Job& job, int process);
// "a, b, c and 4 more": at most `shown` of the items.
std::string listed(const std::vector<std::string>& items, std::size_t shown = 5);

}  // namespace collbench::report::inspector::detail
