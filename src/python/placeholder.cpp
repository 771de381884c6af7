// The Python front-end lives here (tokenizer, imports, name resolution).
namespace banjia::python {}
