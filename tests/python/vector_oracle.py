"""What the vector tests compare with: CVL's operators per element type, their NumPy
ufuncs, and the value CVL shows for an empty prefix or segment (its identity)."""

import numpy as np

I32 = np.iinfo(np.int32)
F64 = np.finfo(np.float64)
IDENTITY = {
    ("add", "i"): 0, ("add", "f"): 0.0, ("mul", "i"): 1, ("mul", "f"): 1.0,
    ("min", "i"): I32.max, ("min", "f"): F64.max, ("max", "i"): I32.min, ("max", "f"): -F64.max,
    ("and", "i"): -1, ("and", "b"): True, ("or", "i"): 0, ("or", "b"): False, ("xor", "i"): 0, ("xor", "b"): False,
}
UFUNC = {"add": np.add, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
         "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
OPS = {np.int32: ["add", "mul", "min", "max", "and", "or", "xor"], np.float64: ["add", "mul", "min", "max"],
       np.bool_: ["and", "or", "xor"]}
