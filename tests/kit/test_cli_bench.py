#!/usr/bin/env python3
"""tests/kit/test_cli_bench.py — tools/kit dev bench and compare without a build: FLOPs, reading
Google Benchmark's JSON (1.7's format), ratios to PyTorch, the JSON lines, the golden diffs,
compare.csv's columns and compare.svg (well-formed, one line per timed implementation)."""

import argparse
import csv
import io
import json
import tempfile
import types
import unittest
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import cli_testing  # noqa: F401  (puts tools/ on the path)
from kitcli import bench, cli, compare

SVG = "{http://www.w3.org/2000/svg}"


def benchmark_entry(name, real_time, aggregate=None, unit="ms", **extra):
    entry = {"name": f"{name}/manual_time" + (f"_{aggregate}" if aggregate else ""),
             "run_name": f"{name}/manual_time",
             "run_type": "aggregate" if aggregate else "iteration", "repetitions": 3,
             "threads": 1, "iterations": 3, "real_time": real_time, "cpu_time": real_time,
             "time_unit": unit}
    if aggregate:
        entry["aggregate_name"] = aggregate
    entry.update(extra)
    return entry


# What attn_bench --benchmark_format=json --benchmark_report_aggregates_only=true prints
# (Google Benchmark 1.7), trimmed: medians, a mean to ignore, a skipped benchmark.
REPORT = {
    "context": {"date": "2024-01-01", "num_cpus": 2, "attn_backend": "OMP",
                "attn_device": "OpenMP, 2 threads"},
    "benchmarks": [
        benchmark_entry("cpu/B:1/T:128", 9.0, "mean"),
        benchmark_entry("cpu/B:1/T:128", 8.0, "median"),
        benchmark_entry("cpu/B:1/T:256", 16000.0, "median", unit="us"),
        benchmark_entry("thrust/B:1/T:128", 12.0, "median"),
        benchmark_entry("thrust/B:1/T:128", 10.0, "min"),
        benchmark_entry("thrust/B:1/T:128", 15.0, "max"),
        benchmark_entry("cpu/B:1/T:128", 7.9, "min"),
        benchmark_entry("cpu/B:1/T:128", 8.3, "max"),
        benchmark_entry("sgemm_rate/M:2048/N:2304/K:768", 50.0, "median", **{"GFLOP/s": 150.0}),
        {"name": "student/B:1/T:128/manual_time", "run_name": "student/B:1/T:128/manual_time",
         "run_type": "iteration", "error_occurred": True,
         "error_message": "not implemented yet: exercises/23_fused_attention.cu: ..."},
    ],
}
PYTORCH_LINES = "\n".join([
    json.dumps({"impl": "pytorch_class", "B": 1, "T": 128, "backend": "CPU", "threads": 2,
                "torch": "1.13", "device": "CPU", "ms_median": 10.0, "ms_min": 7.0,
                "ms_max": 13.0}),
    json.dumps({"impl": "pytorch_sdpa", "B": 1, "T": 128, "backend": "CPU", "threads": 2,
                "torch": "1.13", "device": "CPU", "skipped": "torch 1.13 has no SDPA"}),
])


class BenchRowsTest(unittest.TestCase):
    def rows(self):
        return bench.with_ratios(bench.rows_of_benchmark(REPORT, 2) +
                                 bench.rows_of_pytorch(PYTORCH_LINES))

    def by_key(self):
        return {(row["impl"], row["T"]): row for row in self.rows()}

    def test_causal_flops_count_each_unmasked_product_once(self):
        # GPT-2 at B = 1, T = 1024: 4 projections + half of exercise 22's attention (+ diagonal)
        projections = 4 * 2 * 1024 * 768 * 768
        attention = 2 * 2 * 12 * 64 * 1024 * 1025 / 2
        self.assertEqual(bench.causal_flops(1, 1024), projections + attention)
        self.assertEqual(bench.causal_flops(8, 128), 8 * bench.causal_flops(1, 128))

    def test_pytorchs_repetitions_spread_like_ours(self):
        row = self.by_key()[("pytorch_class", 128)]
        self.assertEqual((row["ms_min"], row["ms_max"]), (7.0, 13.0))
        self.assertIn("noisy: the repetitions spread over 60% of the median", row["note"])

    def test_the_median_is_read_in_milliseconds(self):
        rows = self.by_key()
        self.assertEqual(rows[("cpu", 128)]["ms_median"], 8.0)
        self.assertEqual(rows[("cpu", 256)]["ms_median"], 16.0)  # from microseconds
        self.assertEqual(rows[("cpu", 128)]["backend"], "CPU")
        self.assertEqual(rows[("thrust", 128)]["backend"], "OMP")  # from the context

    def test_gflops_follow_from_the_time(self):
        row = self.by_key()[("cpu", 128)]
        self.assertAlmostEqual(row["gflops"], bench.causal_flops(1, 128) / 8e-3 / 1e9, places=1)

    def test_a_skipped_benchmark_keeps_a_row_with_its_reason(self):
        row = self.by_key()[("student", 128)]
        self.assertIsNone(row["ms_median"])
        self.assertTrue(row["note"].startswith("not implemented yet"))

    def test_a_single_repetition_is_read_from_its_run(self):
        report = {"context": {"attn_backend": "CUDA"},
                  "benchmarks": [benchmark_entry("fast/B:8/T:1024", 0.9)]}
        (row,) = bench.rows_of_benchmark(report, 16)
        self.assertEqual((row["impl"], row["backend"], row["B"], row["T"], row["ms_median"]),
                         ("fast", "CUDA", 8, 1024, 0.9))

    def test_ratio_is_ours_over_pytorchs_class_at_the_same_size(self):
        rows = self.by_key()
        self.assertEqual(rows[("cpu", 128)]["ratio_to_pytorch"], 0.8)
        self.assertEqual(rows[("thrust", 128)]["ratio_to_pytorch"], 1.2)
        self.assertEqual(rows[("pytorch_class", 128)]["ratio_to_pytorch"], 1.0)
        self.assertNotIn("ratio_to_pytorch", rows[("cpu", 256)])  # PyTorch not timed there
        self.assertNotIn("ratio_to_pytorch", rows[("student", 128)])  # no time

    def test_json_lines_have_the_issues_keys_in_order(self):
        lines = bench.json_lines(self.rows()).splitlines()
        self.assertEqual(len(lines), len(self.rows()))
        first = json.loads(lines[0])
        self.assertEqual(list(first)[:7],
                         ["impl", "backend", "B", "T", "threads", "ms_median", "gflops"])
        for line in lines:
            item = json.loads(line)
            self.assertTrue(set(bench.KEYS[:7]) <= set(item), line)
            if item["ms_median"] is None:
                self.assertIn("note", item)
        cpu = [json.loads(line) for line in lines if '"cpu"' in line and '"T": 128' in line]
        self.assertEqual(cpu[0]["ratio_to_pytorch"], 0.8)

    def test_a_spread_over_a_fifth_of_the_median_is_flagged_noisy(self):
        rows = {(row["impl"], row["T"]): row for row in self.rows()}
        self.assertEqual((rows[("cpu", 128)]["ms_min"], rows[("cpu", 128)]["ms_max"]),
                         (7.9, 8.3))
        self.assertNotIn("note", rows[("cpu", 128)])
        self.assertIn("noisy", rows[("thrust", 128)]["note"])  # 10-15 ms around 12

    def test_each_rate_is_a_fraction_of_the_same_runs_sgemm(self):
        self.assertEqual(bench.sgemm_gflops(REPORT), 150.0)
        rows = {(row["impl"], row["T"]): row
                for row in bench.with_roofline(self.rows(), bench.sgemm_gflops(REPORT))}
        cpu = rows[("cpu", 128)]
        self.assertAlmostEqual(cpu["fraction_of_sgemm"], cpu["gflops"] / 150.0, places=3)
        self.assertNotIn("fraction_of_sgemm", rows[("student", 128)])  # no time
        self.assertIn(f"{cpu['fraction_of_sgemm']:.0%}", bench.table(list(rows.values())))
        self.assertIsNone(bench.sgemm_gflops({"benchmarks": []}))

    def test_gpu_rows_are_a_fraction_of_the_gpus_sgemm_only(self):
        cpu = bench.make_row("cpu", "CPU", 8, 1024, 16, 100.0)
        gpu = bench.make_row("fast", "CUDA", 8, 1024, 16, 2.0)
        torch = bench.make_row("pytorch_class", "PyTorch CUDA", 8, 1024, 16, 4.0)
        cpu_rate, gpu_rate = 1000.0, 50000.0
        rows = bench.with_roofline([cpu, gpu, torch], cpu_rate, gpu_rate)
        self.assertEqual([row["fraction_of_sgemm"] for row in rows],
                         [round(row["gflops"] / rate, 3) for row, rate in
                          zip((cpu, gpu, torch), (cpu_rate, gpu_rate, gpu_rate))])
        # without the GPU's rate, a GPU row has no fraction (never one of the CPU's sgemm)
        self.assertEqual(["fraction_of_sgemm" in row
                          for row in bench.with_roofline([cpu, gpu, torch], cpu_rate)],
                         [True, False, False])
        report = {"benchmarks": [benchmark_entry("device_sgemm_rate/M:8192/N:2304/K:768", 1.0,
                                                 "median", **{"GFLOP/s": gpu_rate})]}
        self.assertEqual(bench.sgemm_gflops(report, bench.DEVICE_SGEMM), gpu_rate)
        self.assertIsNone(bench.sgemm_gflops(report))

    def test_the_table_has_a_line_per_row(self):
        text = bench.table(self.rows())
        self.assertEqual(len(text.splitlines()), len(self.rows()) + 1)
        self.assertIn("CPU solution, exercise 19 (xtensor + OpenBLAS)", text)
        # the GPU track's rows say where they ran
        self.assertIn("Thrust kernel (teaching), on CPU threads (OMP)", text)

    def test_quick_arguments_select_the_smallest_size(self):
        arguments = bench.benchmark_arguments(True)
        self.assertIn("--benchmark_format=json", arguments)
        self.assertIn("--benchmark_filter=/B:(1)/T:(128)/|^(sgemm_rate|device_sgemm_rate)/",
                      arguments)
        self.assertIn("--benchmark_filter=/B:(1)/T:(128|256)/"
                      "|^(sgemm_rate|device_sgemm_rate)/",
                      bench.benchmark_arguments(True, (1,), (128, 256)))
        self.assertEqual(bench.pytorch_arguments(True), ["--quick"])
        self.assertEqual(bench.pytorch_arguments(True, (1,), (128, 256)),
                         ["--sizes", "1x128,1x256"])
        self.assertIn("--benchmark_repetitions=5", arguments)
        self.assertIn("--benchmark_filter=/B:(8)/T:(128|1024)/"
                      "|^(sgemm_rate|device_sgemm_rate)/",
                      bench.benchmark_arguments(False, (8,), (128, 1024)))


class BenchOptionsTest(unittest.TestCase):
    def test_thread_counts_and_sizes_are_lists_of_whole_numbers(self):
        options = cli.parser().parse_args(["dev", "bench", "--threads", "1,2", "--batches", "1,8",
                                           "--tokens", "1024"])
        self.assertEqual((options.threads, options.batches, options.tokens),
                         ((1, 2), (1, 8), (1024,)))
        for wrong in ("0", "1,x", ""):
            with self.assertRaises(argparse.ArgumentTypeError):
                cli.numbers(wrong)


class SavedRunTest(unittest.TestCase):
    def test_a_saved_run_says_where_it_ran_then_holds_the_json_lines(self):
        rows = bench.with_ratios(bench.rows_of_benchmark(REPORT, threads=2))
        with tempfile.TemporaryDirectory() as root:
            path = bench.save_run(types.SimpleNamespace(root=Path(root)), REPORT["context"],
                                  rows)
            self.assertEqual(path.parent, Path(root) / "benchmarks" / "results")
            self.assertTrue(path.name.endswith("-OMP.jsonl"), path.name)
            first, *lines = path.read_text(encoding="utf-8").splitlines()
        about = json.loads(first)
        self.assertEqual((about["backend"], about["device"], about["threads"]),
                         ("OMP", "OpenMP, 2 threads", 2))
        self.assertIn("commit", about)
        self.assertEqual(lines, bench.json_lines(rows).splitlines())


class CompareTest(unittest.TestCase):
    GOLDEN_LINES = "\n".join([
        '{"impl": "cpu", "backend": "CPU", "case": "c", "status": "ok", '
        '"max_abs_diff": 2.5e-07, "within_tolerance": true}',
        '{"impl": "thrust", "backend": "OMP", "case": "c", "status": "ok", '
        '"max_abs_diff": 4e-07, "within_tolerance": true}',
        '{"impl": "student", "backend": "OMP", "case": "c", "status": "not_implemented", '
        '"message": "exercises/23_fused_attention.cu: ..."}'])

    def rows(self):
        rows = bench.with_ratios(bench.rows_of_benchmark(REPORT, 2) +
                                 bench.rows_of_pytorch(PYTORCH_LINES))
        return compare.with_goldens(rows, compare.golden_diffs(self.GOLDEN_LINES))

    def test_diffs_come_from_the_golden_lines(self):
        rows = {(row["impl"], row["T"]): row for row in self.rows()}
        self.assertEqual(rows[("cpu", 128)]["max_abs_diff"], 2.5e-07)
        self.assertEqual(rows[("cpu", 256)]["max_abs_diff"], 2.5e-07)
        self.assertNotIn("max_abs_diff", rows[("pytorch_class", 128)])

    def test_an_unimplemented_kernel_says_so_instead_of_a_time(self):
        row = next(row for row in self.rows() if row["impl"] == "student")
        self.assertEqual(row["note"], compare.NOT_IMPLEMENTED)
        self.assertIsNone(row["ms_median"])
        self.assertIn("not implemented yet", compare.table(self.rows()))

    def test_csv_has_its_columns_and_a_line_per_row(self):
        reader = csv.DictReader(io.StringIO(compare.csv_text(self.rows())))
        self.assertEqual(tuple(reader.fieldnames), compare.CSV_COLUMNS)
        lines = list(reader)
        self.assertEqual(len(lines), len(self.rows()))
        cpu = next(line for line in lines if line["impl"] == "cpu" and line["T"] == "128")
        self.assertEqual((cpu["ms_median"], cpu["ratio_to_pytorch"], cpu["max_abs_diff"]),
                         ("8.0000", "0.800", "2.50e-07"))
        student = next(line for line in lines if line["impl"] == "student")
        self.assertEqual((student["ms_median"], student["note"]), ("", "not implemented yet"))

    def test_svg_is_well_formed_with_one_line_per_timed_implementation(self):
        text = compare.svg(self.rows(), "Causal attention <GPT-2> & friends, B = 1", "OMP")
        root = ElementTree.fromstring(text)  # raises on malformed XML
        self.assertEqual(root.tag, f"{SVG}svg")
        series = root.findall(f".//{SVG}g[@class='series']")
        timed = {row["impl"] for row in self.rows() if row.get("ms_median")}
        self.assertEqual({group.get("data-impl") for group in series}, timed)
        for group in series:
            self.assertEqual(len(group.findall(f"{SVG}polyline")), 1)
        texts = " ".join(element.text or "" for element in root.iter(f"{SVG}text"))
        self.assertIn("Causal attention <GPT-2> & friends, B = 1", texts)
        self.assertIn("log scale", texts)
        self.assertIn("T (tokens", texts)
        self.assertIn("your exercise 23", texts)  # in the legend, though it has no line
        self.assertIn("not implemented yet", texts)

    def test_every_line_is_its_own_dash_and_yours_is_drawn_on_top(self):
        rows = [bench.make_row(impl, "OMP", 1, T, 2, 10.0) for impl in ("cpu", "student", "thrust")
                for T in (128, 256)]  # your kernel exactly on the teaching one
        root = ElementTree.fromstring(compare.svg(rows, "t"))
        series = root.findall(f".//{SVG}g[@class='series']")
        self.assertEqual(series[-1].get("data-impl"), "student")
        dashes = [group.find(f"{SVG}polyline").get("stroke-dasharray") for group in series]
        self.assertEqual(len(set(dashes)), len(dashes))

    def test_a_long_note_is_wrapped_in_the_legend_not_cut(self):
        note = ("needs PyTorch 2.0+ (this is 1.13.0a0+git6c9b55e, Debian's build of the "
                "scaled_dot_product_attention-less release)")
        rows = [bench.make_row("cpu", "CPU", 1, 128, 2, 5.0),
                bench.make_row("pytorch_sdpa", "PyTorch CPU", 1, 128, 2, None, note)]
        root = ElementTree.fromstring(compare.svg(rows, "t"))
        texts = " ".join(element.text or "" for element in root.iter(f"{SVG}text"))
        self.assertNotIn("…", texts)
        for word in note.split():
            self.assertIn(word, texts)

    def test_the_roofline_is_the_causal_flops_at_the_sgemm_rate(self):
        rows = [bench.make_row("cpu", "CPU", 1, T, 2, 50.0) for T in (128, 1024)]
        root = ElementTree.fromstring(compare.svg(rows, "t", roofline=(1, 100.0)))
        (line,) = root.findall(f".//{SVG}g[@class='roofline']/{SVG}polyline")
        roof = [float(point.split(",")[1]) for point in line.get("points").split()]
        timed = root.find(f".//{SVG}g[@class='series']/{SVG}polyline")
        cpu = [float(point.split(",")[1]) for point in timed.get("points").split()]
        self.assertGreater(roof[0], cpu[0])  # at T = 128 the floor is far below 50 ms
        self.assertGreater(roof[0], roof[1])  # more FLOPs at T = 1024: a higher time
        self.assertAlmostEqual(bench.causal_flops(1, 1024) / 100e9 * 1e3, 64.4, delta=0.1)

    def test_points_stay_inside_the_plot_and_faster_is_lower(self):
        rows = [bench.make_row("cpu", "CPU", 8, T, 2, ms) for T, ms in
                ((128, 0.05), (256, 3.0), (512, 40.0), (1024, 900.0))]
        root = ElementTree.fromstring(compare.svg(rows, "t"))
        (line,) = root.iter(f"{SVG}polyline")
        points = [tuple(map(float, point.split(","))) for point in line.get("points").split()]
        frame = next(rect for rect in root.iter(f"{SVG}rect") if rect.get("stroke"))
        x0, y0 = float(frame.get("x")), float(frame.get("y"))
        x1, y1 = x0 + float(frame.get("width")), y0 + float(frame.get("height"))
        for x, y in points:
            self.assertTrue(x0 <= x <= x1 and y0 <= y <= y1, (x, y))
        self.assertEqual([x for x, _ in points], sorted(x for x, _ in points))
        self.assertEqual([y for _, y in points], sorted((y for _, y in points), reverse=True))


if __name__ == "__main__":
    unittest.main()
