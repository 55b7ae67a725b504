// datamotion_vector C API (include/datamotion/vector.h).
