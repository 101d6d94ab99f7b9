"""The end-to-end demo: synthetic data to a report and a verified evidence package.

Public API::

    report = run_demo(home, DemoOptions(small=True), on_stage=print)
    report.report_html, report.package, report.stages   # per-stage status and seconds
"""

from m4bench.demo.run import DemoOptions, DemoReport, StageResult, demo_dir, run_demo

__all__ = ["DemoOptions", "DemoReport", "StageResult", "demo_dir", "run_demo"]
