"""``mcastlab reproduce``: the five papers' figures and tables as declared experiments, run on a
local pool or a Dask cluster, with their claims evaluated and a report."""
