"""Evidence: sanitized, verifiable packages of a campaign, and its integrity audit.

Public API::

    result = package_results(results_dir, Path("evidence.tar.zst"),
                             PackageOptions(salt=b"...", outputs="auto", home=home))
    report = verify_package(Path("evidence.tar.zst"))      # report.passed, .failures
    audit = audit_results_dir(results_dir)                  # IntegrityAudit

See ``docs/evidence.md``.
"""

from m4bench.evidence.audit import IntegrityAudit, SupersededAttempt, audit_results_dir
from m4bench.evidence.builder import PackageOptions
from m4bench.evidence.model import PackageManifest, SanitizationReport
from m4bench.evidence.package import PackageResult, package_results
from m4bench.evidence.verify import VerifyReport, verify_package

__all__ = [
    "IntegrityAudit",
    "PackageManifest",
    "PackageOptions",
    "PackageResult",
    "SanitizationReport",
    "SupersededAttempt",
    "VerifyReport",
    "audit_results_dir",
    "package_results",
    "verify_package",
]
