"""The epistemic draft: a second report type built on a (reviewed) runtime report.

``drafter draft REPO --rev REV --type epistemic --runtime RUNTIME`` runs the small
workflow in :mod:`graph.epistemic.workflow`; the offline rules live in
:mod:`graph.epistemic.offline`, the truth-apt scan in :mod:`graph.epistemic.scan`.
"""
