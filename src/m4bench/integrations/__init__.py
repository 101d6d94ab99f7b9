"""m4bench tasks where their users already work: Inspect AI and Harbor.

* :mod:`m4bench.integrations.bundle`: everything one (task, condition, schema) gives an
  agent and its scorer, resolved from a provisioned data home. No third-party import.
* ``inspect_*``: an Inspect AI task per m4bench task (``inspect eval m4bench/<task>``),
  its tools and scorer, and the reader of the eval logs those tasks write
  (``m4bench analyze LOG``). They import ``inspect_ai`` (``pip install 'm4bench[inspect]'``);
  nothing outside this package imports them, so the core never needs it.
* ``harbor_*``: ``m4bench export harbor``, one Harbor task folder per task and condition,
  and the verifier its ``tests/test.sh`` runs. No third-party import.

See ``docs/integrations.md``.
"""
