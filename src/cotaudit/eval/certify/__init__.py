"""Research evaluations of the certify engine: the ProofWriter pipeline, the legal, MedCalc and
dependency-DAG data sets, the admission replay H5, the serving metrics and the spec's
constructed workloads."""

__all__: list[str] = []
