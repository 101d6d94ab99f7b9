"""Provisioning: per-task agent catalogs, ground truth and schema perturbations.

Everything here is built once per source (or per source and task) under
``$M4BENCH_HOME/tasks/<source>/`` and ``$M4BENCH_HOME/perturbed/<source>/``; a run
only copies a kilobyte-sized catalog file (see :mod:`m4bench.provision.agent_catalog`).
"""
