// `import SQLiteToolkit` is meant to be enough for everything the README and the docs show, and the toolkit's own
// public API is built from SQLiteBindings' types: `ResultCode` (thrown and matched in `catch`), the handles behind
// `Database.handle` and `Statement.handle`, and the option sets of `Configuration` (`OpenFlags`, ...). Public type
// aliases for each would hide half of their members' documentation and need a new alias for every type a later
// feature exposes; a re-export keeps one name and one page per type, and SQLiteBindings holds nothing a toolkit
// user must not see (it is the documented escape hatch to every C function). So the whole module is re-exported.
@_exported import SQLiteBindings
