// Every table and view of the data contract (docs/schema.md), one file per table group.
export {};
