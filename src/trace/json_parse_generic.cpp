// On-Demand parser for the CPU baseline (the builtin simdjson implementation of this build).
#define PARSE_FN parse_events_generic
#include "trace/json_event_parser.inc"
