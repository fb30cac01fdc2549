//! Experiments: a paper's table or figure reproduced as a pure function over the core, one file
//! each. They use schemes; they are not schemes themselves (nothing registers them in
//! [`crate::schemes::SCHEMES`]).
//!
//! | file | what |
//! | --- | --- |
//! | `qs_table.rs` | coll03 Table 1 / Fig. 7: greedy versus optimal hardware-tree depth on faulty fat-trees |

pub mod qs_table;
