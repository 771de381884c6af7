// On-Demand parser for the CPU baseline (the builtin simdjson implementation of this build).
#define PARSE_FN parse_document_generic
#define PARSE_ARRAY_FN parse_event_array_generic
#include "trace/readers/json_event_parser.inc"
