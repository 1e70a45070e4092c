"""One recorder per exercise, each in its own module (exNN_name.py) and registered with
@recorder("NN") from recorder.cases. Every module in this folder is imported; the
registered ids must be exactly exercises.json's."""

import importlib
import pkgutil

from ..cases import RECORDERS


def registered(catalogue):
    """[(id, golden folder relative to reference_data/, recorder)] in course order."""
    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    listed = [exercise["id"] for exercise in catalogue["exercises"]]
    if sorted(RECORDERS) != sorted(listed):
        missing = sorted(set(listed) - set(RECORDERS))
        unknown = sorted(set(RECORDERS) - set(listed))
        raise SystemExit(f"tools/record: the recorders in tools/recorder/exercises/ do not match "
                         f"exercises.json: no recorder for {missing or 'none'}, recorders for "
                         f"ids exercises.json lacks: {unknown or 'none'}")
    result = []
    for exercise in catalogue["exercises"]:
        prefix, _, folder = exercise["goldens"].partition("/")
        if prefix != "reference_data" or not folder:
            raise SystemExit(f"tools/record: exercise {exercise['id']}'s goldens "
                             f"{exercise['goldens']!r} is not a folder under reference_data/")
        result.append((exercise["id"], folder, RECORDERS[exercise["id"]]))
    return result
