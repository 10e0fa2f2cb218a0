// zg::mpi::value_and_grad_sum and zg::mpi::broadcast, run by run.py under mpirun with 1, 2 and 4
// ranks: every rank's result equals, bit for bit, the threaded sum over all the shards, whichever
// rank holds which shard; a shard's exception reaches every rank, as do misuses and the errors
// MPI returns; the output (hexadecimal doubles) must be the same for every number of ranks. With
// the argument "single", MPI starts without thread support and only the checks of that run.
#include "models/normal_likelihood.hpp"

#include <zerograd/mpi.hpp>
#include <zerograd/parallel.hpp>

#include <Eigen/Core>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using models::normal_likelihood::shard_nll;
using result = zg::value_and_grad_result<std::tuple<std::vector<double>>>;

int rank = 0, ranks = 1, failures = 0;

void expect(bool condition, const std::string& what) {
    if (condition) return;
    std::fprintf(stderr, "rank %d: failed: %s\n", rank, what.c_str());
    ++failures;
}

bool same_bits(const result& a, const result& b) {
    const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
    const std::vector<double>& ga = std::get<0>(a.grad);
    const std::vector<double>& gb = std::get<0>(b.grad);
    if (bits(a.value) != bits(b.value) || ga.size() != gb.size()) return false;
    for (std::size_t j = 0; j < ga.size(); ++j)
        if (bits(ga[j]) != bits(gb[j])) return false;
    return true;
}

// 30,000 draws of N(1.5, 2^2) in 41 shards of uneven sizes, the same on every rank.
std::vector<std::vector<double>> make_shards() {
    std::mt19937_64 generator(11);
    std::normal_distribution<double> draw(1.5, 2.0);
    std::vector<std::vector<double>> shards;
    std::size_t left = 30000;
    for (std::size_t i = 0; left > 0; ++i) {
        const std::size_t size = std::min<std::size_t>(left, 150 + (i * 397) % 900);
        std::vector<double>& shard = shards.emplace_back(size);
        for (double& x : shard)
            x = draw(generator);
        left -= size;
    }
    return shards;
}

// The shards this rank holds, when shard i goes to owner(i).
std::vector<std::vector<double>> local(const std::vector<std::vector<double>>& shards,
                                       const std::function<int(std::size_t)>& owner) {
    std::vector<std::vector<double>> mine;
    for (std::size_t i = 0; i < shards.size(); ++i)
        if (owner(i) == rank) mine.push_back(shards[i]);
    return mine;
}

// What `call` threw: "Type: what()" for the types zg::mpi throws, "nothing" if it returned.
std::string thrown_by(const std::function<void()>& call) {
    try {
        call();
    } catch (const zg::mpi::remote_error& e) {
        return "remote_error from rank " + std::to_string(e.rank) + ": " + e.what();
    } catch (const zg::mpi::mpi_error& e) {
        return std::string("mpi_error: ") + e.what();
    } catch (const zg::shape_error& e) {
        return std::string("shape_error: ") + e.what();
    } catch (const zg::error& e) {
        return std::string("error: ") + e.what();
    } catch (const std::exception& e) {
        return std::string("exception: ") + e.what();
    }
    return "nothing";
}

// What thrown_by gives on this rank when rank `failed` fails with `message`: `kind` and the
// message there, a remote_error on the other ranks.
std::string failure_seen(int failed, const std::string& kind, const std::string& message) {
    if (rank == failed) return kind + ": " + message;
    return "remote_error from rank " + std::to_string(failed) +
           ": zg::mpi::value_and_grad_sum: rank " + std::to_string(failed) + " failed: " + message;
}

// Prints whether every rank's checks passed, and ends MPI.
int finish() {
    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("%s\n", all_failures == 0 ? "every check passed" : "FAILED");
    MPI_Finalize();
    return failures == 0 ? 0 : 1;
}

// Without thread support, any number of threads but 1 throws on every rank before f runs.
void without_thread_support(const std::vector<std::vector<double>>& shards) {
    const std::vector<double> params = {1.2, 0.6};
    const auto mine = local(shards, [](std::size_t i) { return static_cast<int>(i % ranks); });
    const std::string start = "error: zg::mpi::value_and_grad_sum: ";
    const std::string remedy = ", but MPI was started without thread support; start it with "
                               "MPI_Init_thread(..., MPI_THREAD_FUNNELED, ...) or pass threads = 1";
    for (unsigned threads : {0u, 2u}) {
        const std::string asked =
            threads == 0 ? "threads = 0 (one per hardware thread)" : "threads = 2";
        expect(thrown_by([&] {
                   zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, params, mine, threads);
               }) == start + asked + remedy,
               asked + " without thread support");
    }
    expect(same_bits(zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, params, mine, 1),
                     zg::parallel::value_and_grad_sum(shard_nll, params, shards, 1)),
           "threads = 1 without thread support");
}

} // namespace

int main(int argc, char** argv) {
    const bool single = argc > 1 && std::string(argv[1]) == "single";
    int provided = MPI_THREAD_SINGLE;
    if (single)
        MPI_Init(&argc, &argv);
    else
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const auto shards = make_shards();
    const std::size_t n = shards.size();
    if (single) {
        without_thread_support(shards);
        return finish();
    }

    // The starting point, drawn on rank 0 only.
    std::vector<double> params;
    if (rank == 0) params = {1.2, 0.6};
    zg::mpi::broadcast(MPI_COMM_WORLD, params);
    expect(params == std::vector<double>{1.2, 0.6}, "broadcast of a std::vector");
    Eigen::VectorXd eigen_params(rank == 0 ? 3 : 1);
    if (rank == 0) eigen_params << 1.0, 2.0, 3.0;
    zg::mpi::broadcast(MPI_COMM_WORLD, eigen_params);
    expect(eigen_params.size() == 3 && eigen_params[2] == 3.0, "broadcast of an Eigen vector");
    // Into vectors of fixed size: one that fits, and one that does not, which takes part and
    // throws on its rank alone.
    Eigen::Vector3d fixed(0.0, 0.0, rank == 0 ? 7.0 : 0.0);
    zg::mpi::broadcast(MPI_COMM_WORLD, fixed);
    expect(fixed[2] == 7.0, "broadcast into a fixed-size vector that fits");
    if (rank == 0) {
        std::vector<double> three = {1.0, 2.0, 3.0};
        zg::mpi::broadcast(MPI_COMM_WORLD, three);
    } else {
        Eigen::Vector2d two(5.0, 6.0);
        bool threw = false;
        try {
            zg::mpi::broadcast(MPI_COMM_WORLD, two);
        } catch (const zg::shape_error& e) {
            threw = std::string(e.what()) ==
                    "zg::mpi::broadcast: rank 0's 3 parameters do not fit this rank's vector of "
                    "2; pass a std::vector<double> or a dynamic-size Eigen vector";
        }
        expect(threw && two == Eigen::Vector2d(5.0, 6.0),
               "a shape_error for a fixed-size vector the root's does not fit, unchanged");
    }

    const result reference = zg::parallel::value_and_grad_sum(shard_nll, params, shards, 1);
    const std::vector<std::pair<const char*, std::function<int(std::size_t)>>> layouts = {
        {"round robin", [](std::size_t i) { return static_cast<int>(i % ranks); }},
        {"blocks", [&](std::size_t i) { return static_cast<int>(i * ranks / n); }},
        {"all on the last rank", [](std::size_t) { return ranks - 1; }},
        {"backwards", [](std::size_t i) { return ranks - 1 - static_cast<int>(i % ranks); }},
    };
    for (const auto& [name, owner] : layouts)
        for (unsigned threads : {1u, 2u}) {
            const result r = zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, params,
                                                         local(shards, owner), threads);
            expect(same_bits(r, reference), std::string(name) + ", " +
                                                std::to_string(threads) + " thread(s): the bits "
                                                "of the threaded sum over every shard");
        }
    // Parameters as an Eigen vector.
    const Eigen::Vector2d eigen_point(1.2, 0.6);
    expect(same_bits(zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, eigen_point,
                                                  local(shards, layouts[0].second)),
                     reference),
           "parameters as an Eigen vector");

    // A shard with an infinite point: an infinite value and a NaN gradient, counted apart from
    // the limbs and reduced only because one rank has them.
    std::vector<std::vector<double>> with_infinity = shards;
    with_infinity[5][0] = std::numeric_limits<double>::infinity();
    const result infinite = zg::parallel::value_and_grad_sum(shard_nll, params, with_infinity, 1);
    expect(infinite.value == std::numeric_limits<double>::infinity(), "an infinite value");
    expect(same_bits(zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, params,
                                                 local(with_infinity, layouts[1].second)),
                     infinite),
           "infinities and NaN: the bits of the threaded sum");

    // Shard 17 throws; its rank rethrows its own exception, every other rank a remote_error.
    const int failing_rank = static_cast<int>(17 % ranks);
    const auto failing = [](std::span<const zg::var> p, const std::vector<double>& xs) {
        if (xs.size() == make_shards()[17].size()) throw std::runtime_error("shard 17 is bad");
        return shard_nll(p, xs);
    };
    bool caught = false;
    try {
        zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, failing, params,
                                    local(shards, layouts[0].second));
    } catch (const zg::mpi::remote_error& e) {
        caught = rank != failing_rank && e.rank == failing_rank &&
                 std::string(e.what()) == "zg::mpi::value_and_grad_sum: rank " +
                                              std::to_string(failing_rank) +
                                              " failed: shard 17 is bad";
    } catch (const std::runtime_error& e) {
        caught = rank == failing_rank && std::string(e.what()) == "shard 17 is bad";
    }
    expect(caught, "shard 17's exception on every rank");
    expect(same_bits(zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, params,
                                                 local(shards, layouts[0].second)),
                     reference),
           "the call after an error");

    // Ranks that disagree on the parameters all throw, none waits; the message names the lowest
    // rank of each count, or of each hash of the bits (0.0 and -0.0 differ). An error of f comes
    // first.
    const auto mine = local(shards, layouts[0].second);
    const auto call = [&](const std::vector<double>& p, unsigned threads = 1) {
        return [&p, &mine, threads] {
            zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, p, mine, threads);
        };
    };
    if (ranks > 1) {
        std::vector<double> uneven = params;
        if (rank >= 1) uneven.push_back(0.0);
        expect(thrown_by(call(uneven)) ==
                   "shape_error: zg::mpi::value_and_grad_sum: the ranks' parameters differ in "
                   "size: 2 on rank 0, 3 on rank 1; every rank passes the same parameters",
               "a shape_error on every rank for parameters of different sizes");
        const std::string differ_in_value =
            "error: zg::mpi::value_and_grad_sum: the ranks' parameters differ in value: rank 0's "
            "and rank 1's are not the same bits; every rank passes the same parameters "
            "(zg::mpi::broadcast gives every rank one rank's)";
        std::vector<double> drifted = params;
        if (rank == 1) drifted[1] = std::nextafter(drifted[1], 1.0);
        expect(thrown_by(call(drifted)) == differ_in_value,
               "an error on every rank for parameters of different values");
        std::vector<double> signed_zero = {rank == 1 ? -0.0 : 0.0, 0.6};
        expect(thrown_by(call(signed_zero)) == differ_in_value, "0.0 and -0.0 differ");
        const std::string thrown =
            thrown_by([&] { zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, failing, uneven, mine); });
        expect(thrown == failure_seen(failing_rank, "exception", "shard 17 is bad"),
               "f's error before the parameters' sizes");
    }

    // An intercommunicator is refused on every rank, before any collective.
    if (ranks > 1) {
        MPI_Comm half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 0, &inter);
        const std::string refused = ": comm is an intercommunicator; pass an intracommunicator "
                                    "(MPI_COMM_WORLD, or one made by MPI_Comm_split)";
        expect(thrown_by([&] { zg::mpi::value_and_grad_sum(inter, shard_nll, params, mine); }) ==
                   "error: zg::mpi::value_and_grad_sum" + refused,
               "value_and_grad_sum refuses an intercommunicator");
        std::vector<double> copy = params;
        expect(thrown_by([&] { zg::mpi::broadcast(inter, copy); }) ==
                   "error: zg::mpi::broadcast" + refused,
               "broadcast refuses an intercommunicator");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }

    // Under MPI_ERRORS_RETURN, an error MPI returns throws zg::mpi::mpi_error naming the call;
    // a root out of range is found on every rank, which all throw and stay in step.
    MPI_Comm returning = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &returning);
    MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
    std::vector<double> kept = {rank == 0 ? 4.0 : -4.0};
    expect(thrown_by([&] { zg::mpi::broadcast(returning, kept, ranks); }) ==
               "mpi_error: zg::mpi::broadcast: MPI_Bcast failed: MPI_ERR_ROOT: invalid root",
           "mpi_error on every rank for a root out of range");
    expect(kept == std::vector<double>{rank == 0 ? 4.0 : -4.0}, "unchanged by a failed broadcast");
    zg::mpi::broadcast(returning, kept);
    expect(kept == std::vector<double>{4.0}, "a broadcast after an MPI error");
    expect(same_bits(zg::mpi::value_and_grad_sum(returning, shard_nll, params, mine), reference),
           "a sum after an MPI error");
    MPI_Comm_free(&returning);

    // Under MPI_THREAD_FUNNELED, a call from a thread other than MPI's main thread, with workers
    // or without (the calling thread makes the MPI calls), throws zg::error there and
    // zg::mpi::remote_error on the other ranks, none left waiting.
    if (provided == MPI_THREAD_FUNNELED) {
        for (const unsigned threads : {0u, 1u}) {
            std::string thrown;
            const auto sum = call(params, threads);
            if (rank == ranks - 1)
                std::thread([&] { thrown = thrown_by(sum); }).join();
            else
                thrown = thrown_by(sum);
            const std::string message =
                "zg::mpi::value_and_grad_sum: " +
                std::string(threads == 0 ? "threads = 0 (one per hardware thread)" : "threads = 1") +
                ", called from a thread other than MPI's main thread (the one that called "
                "MPI_Init_thread) under MPI_THREAD_FUNNELED; call it from that thread or start MPI "
                "at MPI_THREAD_SERIALIZED or above";
            expect(thrown == failure_seen(ranks - 1, "error", message),
                   "a call from a thread other than MPI's main thread");
        }
    }

    // What the processes computed, which must not change with their number.
    const result r = zg::mpi::value_and_grad_sum(MPI_COMM_WORLD, shard_nll, params,
                                                 local(shards, layouts[0].second));
    if (rank == 0) {
        const std::vector<double>& g = std::get<0>(r.grad);
        std::printf("value %a\ngradient %a %a\n", r.value, g[0], g[1]);
    }
    return finish();
}
