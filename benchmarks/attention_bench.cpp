// benchmarks/attention_bench.cpp — MultiHeadAttention's forward at GPT-2 width (d_in = d_out =
// 768, 12 heads of 64, context_length 1024, qkv_bias False), timed with Google Benchmark:
//   cpu      exercise 19's solution, attn::MultiHeadAttention::forward (xtensor + OpenBLAS)
//   cpu_fast the same module's forward fused and blocked (attn::cpu::FastMultiHeadAttention,
//            kit/cpu/fast_attention.cpp: OpenBLAS GEMMs, online softmax on OpenMP threads)
//   thrust   the GPU track's module (attn::gpu::FusedMultiHeadAttention) with exercise 23's
//            teaching kernel, data resident in the backend's memory (backend: OMP or CUDA)
//   fast     the same module with the fast CUDA kernel (CUDA builds only)
//   student  the same module with the student's exercises/23_fused_attention.cu
//   tiled, student_tiled  the same module with exercise 24's tiled kernel, the solution's or
//            the student's (CUDA builds only: the emulator checks, it does not time)
//   sgemm_rate  OpenBLAS alone on the QKV projection's shape for 2048 tokens: the machine's
//            GEMM rate in the same run, the roofline tools/kit dev bench measures the others by
//   device_sgemm_rate  on CUDA, cuBLAS alone on that shape for 8192 tokens (B = 8, T = 1024):
//            the GPU's fp32 GEMM rate in the same run, the roofline of the GPU rows
// at T in {128, 256, 512, 1024} and B in {1, 8}. One source, two programs, as both tracks of
// exercise 23 define attn::gpu::fused_causal_attention: attn_bench (cpu, thrust, fast; linked to
// the solutions) and attn_bench_student (student; linked to the student's file).
//
//   build-release/bin/attn_bench --benchmark_repetitions=5 --benchmark_format=json
//   build-release/bin/attn_bench --benchmark_filter='B:1/T:128'
//   build-release/bin/attn_bench --golden     # max |diff| to exercise 22's GPT-2 golden
//
// Each repetition reports manual time (attn::gpu::synchronize() before the clock stops), a
// "flops" counter (causal FLOPs counted once: 4 projections 2·B·T·d² each, scores and weights @
// values 2·B·H·hd·T(T+1)/2 each) and GFLOP/s; tools/kit dev bench reads the JSON's median
// aggregate. The module's parameters come from attn::HashedUniform(kInitSeed) and x from
// attn::hashed_uniform(kXSeed, "x", ...), which benchmarks/pytorch_timings.py computes alike,
// so PyTorch runs the same numbers.
//
// --golden prints one JSON line per implementation: its max |diff| to the recorded forward of
// exercise 22 (reference_data/22_gpt2_sizing/forward_t64, loaded through the kit's case store,
// sha256 checked) and whether that is within the kit's tolerance; a kernel that throws
// attn::not_implemented gives "status": "not_implemented", a CUDA build without a GPU
// "no_device".
#include "attn/errors.hpp"
#include "attn/module.hpp"
#include "attn/multi_head_attention.hpp"
#include "attn/tiled_attention.hpp"
#include "kit/compare.hpp"
#include "kit/cpu/fast_attention.hpp"
#include "kit/golden_store.hpp"
#include "kit/gpu/backend.hpp"
#include "kit/gpu/fused_module.hpp"
#include "kit/gpu/tensors.hpp"

#if defined(ATTN_BENCH_FAST)
#include "kit/gpu/fast_attention.hpp"
#endif

#include <benchmark/benchmark.h>
#include <xtensor/xmath.hpp>

#include <algorithm>
#include <cblas.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

// GPT-2 small's attention layer (exercise 22) and the seeds of the benchmark's inputs;
// benchmarks/pytorch_timings.py uses the same numbers.
constexpr std::size_t kWidth = 768, kHeads = 12, kContext = 1024;
constexpr std::uint64_t kInitSeed = 2301, kXSeed = 2302;
const char* const kGoldenCase = "22_gpt2_sizing/forward_t64";

struct Implementation {
    std::string name;                         // "cpu", "cpu_fast", "thrust", "fast", "student"
    std::string backend;                      // "CPU", "OMP", "CUDA"
    attn::gpu::CausalAttentionKernel kernel;  // nullptr: on the CPU, the module or cpu_fast
    bool fast_cpu = false;                    // attn::cpu::FastMultiHeadAttention
};

std::vector<Implementation> implementations() {
    const std::string gpu = attn::gpu::backend_name();
#if defined(ATTN_BENCH_STUDENT)
    std::vector<Implementation> all{{"student", gpu, attn::gpu::fused_causal_attention}};
#if defined(ATTN_BENCH_TILED)
    all.push_back({"student_tiled", gpu, attn::gpu::tiled_causal_attention});
#endif
    return all;
#else
    std::vector<Implementation> all{{"cpu", "CPU", nullptr},
                                    {"cpu_fast", "CPU", nullptr, true},
                                    {"thrust", gpu, attn::gpu::fused_causal_attention}};
#if defined(ATTN_BENCH_FAST)
    all.push_back({"fast", gpu, attn::gpu::fast_causal_attention});
#endif
#if defined(ATTN_BENCH_TILED)
    all.push_back({"tiled", gpu, attn::gpu::tiled_causal_attention});
#endif
    return all;
#endif
}

attn::MultiHeadAttention gpt2_layer(std::uint64_t seed, bool qkv_bias) {
    attn::HashedUniform init(seed);
    return attn::MultiHeadAttention(kWidth, kWidth, kContext, kHeads, qkv_bias, init);
}

attn::gpu::HostLinear host(const attn::Linear& layer) {
    return {layer.weight.data(), layer.has_bias() ? layer.bias.data() : nullptr};
}

attn::gpu::FusedMultiHeadAttention fused(const attn::MultiHeadAttention& module) {
    const attn::gpu::ModuleSizes sizes{static_cast<std::int64_t>(module.d_in()),
                                       static_cast<std::int64_t>(module.d_out()),
                                       static_cast<std::int64_t>(module.context_length()),
                                       static_cast<std::int64_t>(module.num_heads)};
    return attn::gpu::FusedMultiHeadAttention(sizes, host(module.W_query), host(module.W_key),
                                              host(module.W_value), host(module.out_proj));
}

// The benchmark's layer, built once per program (2.36 M hashed parameters).
const attn::MultiHeadAttention& bench_layer() {
    static const attn::MultiHeadAttention layer = gpt2_layer(kInitSeed, false);
    return layer;
}

// Not const: the module keeps its intermediate buffers for the next call.
attn::gpu::FusedMultiHeadAttention& bench_fused_layer() {
    static attn::gpu::FusedMultiHeadAttention layer = fused(bench_layer());
    return layer;
}

attn::Tensor3 bench_x(std::size_t batch, std::size_t tokens) {
    return attn::hashed_uniform(kXSeed, "x", {batch, tokens, kWidth}, -1.0f, 1.0f);
}

// Causal FLOPs of one forward, each product counted once: the 4 projections and, per batch
// item and head, the T(T+1)/2 unmasked scores and as many weighted values.
double causal_flops(double batch, double tokens) {
    const double d = kWidth, heads = kHeads, head_dim = d / heads;
    return 4.0 * 2.0 * batch * tokens * d * d +
           2.0 * 2.0 * batch * heads * head_dim * tokens * (tokens + 1.0) / 2.0;
}

using Clock = std::chrono::steady_clock;

void report(benchmark::State& state, std::size_t batch, std::size_t tokens) {
    const double flops = causal_flops(static_cast<double>(batch), static_cast<double>(tokens));
    state.counters["flops"] = flops;
    state.counters["GFLOP/s"] =
        benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// The CPU forward of `module`: the teaching solution's, or the fast path's.
attn::Tensor3 cpu_forward(const attn::MultiHeadAttention& module, const attn::Tensor3& x,
                          bool fast) {
    if (!fast) return module.forward(x);
    return attn::cpu::FastMultiHeadAttention(module).forward(x);
}

void bench_cpu(benchmark::State& state, bool fast) {
    const auto batch = static_cast<std::size_t>(state.range(0));
    const auto tokens = static_cast<std::size_t>(state.range(1));
    const attn::MultiHeadAttention& layer = bench_layer();
    // The fast path packs its weights once, as a module holds its parameters.
    static const attn::cpu::FastMultiHeadAttention fast_layer(layer);
    const attn::Tensor3 x = bench_x(batch, tokens);
    for (auto _ : state) {
        const auto start = Clock::now();
        attn::Tensor3 context = fast ? fast_layer.forward(x) : layer.forward(x);
        benchmark::DoNotOptimize(context.data());
        state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
    }
    report(state, batch, tokens);
}

void bench_fused(benchmark::State& state, attn::gpu::CausalAttentionKernel kernel) {
    const auto batch = static_cast<std::size_t>(state.range(0));
    const auto tokens = static_cast<std::size_t>(state.range(1));
    if (!attn::gpu::device_available()) {
        state.SkipWithError(("no device: " + attn::gpu::device_description()).c_str());
        return;
    }
    try {
        attn::gpu::FusedMultiHeadAttention& layer = bench_fused_layer();
        const attn::Tensor3 x_host = bench_x(batch, tokens);
        const attn::gpu::DeviceArray x(x_host.data(), x_host.size());
        attn::gpu::DeviceArray context(batch * tokens * kWidth);
        const auto b = static_cast<std::int64_t>(batch), t = static_cast<std::int64_t>(tokens);
        // warm-up: the module's buffers grow to B * T, cuBLAS loads its kernels
        layer.forward(x.data(), context.data(), b, t, kernel);
        attn::gpu::synchronize();
        for (auto _ : state) {
            const auto start = Clock::now();
            layer.forward(x.data(), context.data(), b, t, kernel);
            attn::gpu::synchronize();
            state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
        }
    } catch (const attn::not_implemented& error) {
        state.SkipWithError((std::string("not implemented yet: ") + error.what()).c_str());
        return;
    } catch (const std::exception& error) {
        state.SkipWithError(error.what());
        return;
    }
    report(state, batch, tokens);
}

// The machine's own sgemm rate, measured in the same run with the same threads: OpenBLAS on
// the QKV projection's shape for 2048 tokens, (2048, 768) @ (768, 2304). tools/kit dev bench
// prints each implementation's GFLOP/s as a fraction of it (its roofline).
void bench_sgemm(benchmark::State& state) {
    const auto m = static_cast<int>(state.range(0)), n = static_cast<int>(state.range(1)),
               k = static_cast<int>(state.range(2));
    const std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f);
    const std::vector<float> weight(static_cast<std::size_t>(n) * k, 0.25f);
    std::vector<float> out(static_cast<std::size_t>(m) * n);
    for (auto _ : state) {
        const auto start = Clock::now();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k,
                    weight.data(), k, 0.0f, out.data(), n);
        benchmark::DoNotOptimize(out.data());
        state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
    }
    const double flops = 2.0 * m * n * k;
    state.counters["GFLOP/s"] =
        benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// The GPU's own fp32 GEMM rate in the same run: the backend's linear (cuBLAS's sgemm, fp32
// math) on the QKV projection's shape for B * T = 8192 tokens, data resident on the device.
void bench_device_sgemm(benchmark::State& state) {
    const auto m = state.range(0), n = state.range(1), k = state.range(2);
    const std::vector<float> a(static_cast<std::size_t>(m * k), 0.5f);
    const std::vector<float> weight(static_cast<std::size_t>(n * k), 0.25f);
    const attn::gpu::DeviceArray a_device(a.data(), a.size());
    const attn::gpu::DeviceArray weight_device(weight.data(), weight.size());
    attn::gpu::DeviceArray out(static_cast<std::size_t>(m * n));
    attn::gpu::linear(a_device.data(), weight_device.data(), nullptr, out.data(), m, k, n);
    attn::gpu::synchronize();  // warm-up: cuBLAS's handle and kernels
    for (auto _ : state) {
        const auto start = Clock::now();
        attn::gpu::linear(a_device.data(), weight_device.data(), nullptr, out.data(), m, k, n);
        attn::gpu::synchronize();
        state.SetIterationTime(std::chrono::duration<double>(Clock::now() - start).count());
    }
    state.counters["GFLOP/s"] =
        benchmark::Counter(2.0 * m * n * k / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

double smallest(const std::vector<double>& times) {
    return *std::min_element(times.begin(), times.end());
}
double largest(const std::vector<double>& times) {
    return *std::max_element(times.begin(), times.end());
}

void register_benchmarks() {
    for (const Implementation& impl : implementations()) {
        benchmark::internal::Benchmark* registered =
            impl.kernel == nullptr
                ? benchmark::RegisterBenchmark(impl.name.c_str(), bench_cpu, impl.fast_cpu)
                : benchmark::RegisterBenchmark(impl.name.c_str(), bench_fused, impl.kernel);
        registered->ArgNames({"B", "T"})
            ->ArgsProduct({{1, 8}, {128, 256, 512, 1024}})
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond)
            ->ComputeStatistics("min", smallest)  // the spread of the repetitions
            ->ComputeStatistics("max", largest);
    }
    benchmark::RegisterBenchmark("sgemm_rate", bench_sgemm)
        ->ArgNames({"M", "N", "K"})
        ->Args({2048, 3 * static_cast<std::int64_t>(kWidth), static_cast<std::int64_t>(kWidth)})
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
    if (std::string(attn::gpu::backend_name()) == "CUDA" && attn::gpu::device_available()) {
        benchmark::RegisterBenchmark("device_sgemm_rate", bench_device_sgemm)
            ->ArgNames({"M", "N", "K"})
            ->Args({8 * 1024, 3 * static_cast<std::int64_t>(kWidth),
                    static_cast<std::int64_t>(kWidth)})
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
    }
}

// ---- --golden: each implementation against exercise 22's recorded GPT-2 forward ----------

std::string json_string(const std::string& text) {
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') {
            quoted += '\\';
            quoted += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            quoted += escaped;
        } else {
            quoted += c;
        }
    }
    return quoted + "\"";
}

int golden_diffs() {
    const attn::kit::golden_store& store = attn::kit::golden_store::instance();
    const attn::kit::case_entry& the_case = store.find_case(kGoldenCase);
    const auto integer = [&](const char* name) {
        return store.load_as<std::int64_t, 0>(the_case.file(name))();
    };
    const attn::MultiHeadAttention layer =
        gpt2_layer(static_cast<std::uint64_t>(integer("init_seed")), integer("qkv_bias") != 0);
    const attn::Tensor3 x = attn::hashed_uniform(
        static_cast<std::uint64_t>(integer("x_seed")), "x",
        {static_cast<std::size_t>(integer("batch")), static_cast<std::size_t>(integer("T")),
         static_cast<std::size_t>(integer("d_in"))},
        -1.0f, 1.0f);
    const attn::kit::expected_golden expected = store.expected(the_case.file("context"));
    const auto& golden = std::get<attn::kit::float_tensor>(expected.tensor);

    for (const Implementation& impl : implementations()) {
        std::string line = "{\"impl\": " + json_string(impl.name) +
                           ", \"backend\": " + json_string(impl.backend) +
                           ", \"case\": " + json_string(kGoldenCase) + ", ";
        try {
            if (impl.kernel != nullptr && !attn::gpu::device_available()) {
                std::printf("%s\"status\": \"no_device\", \"message\": %s}\n", line.c_str(),
                            json_string(attn::gpu::device_description()).c_str());
                continue;
            }
            const attn::Tensor3 context =
                impl.kernel == nullptr ? cpu_forward(layer, x, impl.fast_cpu)
                                       : attn::gpu::multi_head_attention(layer, x, impl.kernel);
            const attn::kit::float_tensor got = context;
            const attn::kit::comparison verdict = attn::kit::compare(got, expected);
            const double max_diff = got.shape() == golden.shape()
                                        ? static_cast<double>(xt::amax(xt::abs(got - golden))())
                                        : -1.0;
            char numbers[96];
            std::snprintf(numbers, sizeof numbers, "\"max_abs_diff\": %.6g", max_diff);
            line += std::string("\"status\": \"ok\", ") + numbers +
                    ", \"within_tolerance\": " + (verdict.passed ? "true" : "false");
        } catch (const attn::not_implemented& error) {
            line += "\"status\": \"not_implemented\", \"message\": " + json_string(error.what());
        } catch (const std::exception& error) {
            line += "\"status\": \"error\", \"message\": " + json_string(error.what());
        }
        std::printf("%s}\n", line.c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<char*> rest;
    bool golden = false;
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::strcmp(argv[i], "--golden") == 0) {
            golden = true;
        } else {
            rest.push_back(argv[i]);
        }
    }
    if (golden) {
        try {
            return golden_diffs();
        } catch (const std::exception& error) {
            std::fprintf(stderr, "attn_bench --golden: %s\n", error.what());
            return 1;
        }
    }
    int rest_count = static_cast<int>(rest.size());
    benchmark::Initialize(&rest_count, rest.data());
    if (benchmark::ReportUnrecognizedArguments(rest_count, rest.data())) return 1;
    benchmark::AddCustomContext("attn_backend", attn::gpu::backend_name());
    benchmark::AddCustomContext("attn_device", attn::gpu::device_description());
    benchmark::AddCustomContext("attn_init_seed", std::to_string(kInitSeed));
    benchmark::AddCustomContext("attn_x_seed", std::to_string(kXSeed));
    register_benchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
