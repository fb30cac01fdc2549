//! The machinery of a parameter table: [`Param`], one row per settable key, and
//! [`param_table!`], which declares the settings structs and their rows from one definition.

use super::Kind;
use crate::error::SimError;

/// One settable key of the settings struct `R`: its name, doc and kind, and how to read and write
/// the field from text. Rows are built by `param_table!` only.
pub struct Param<R: 'static> {
    /// The key as a user types it: the serde path of the field (`link.bandwidth`).
    pub key: &'static str,
    pub(super) group_doc: &'static [&'static str],
    pub(super) doc: &'static [&'static str],
    pub(super) kind: fn() -> String,
    pub(super) accepts: fn() -> String,
    pub(super) get: fn(&R) -> String,
    pub(super) set: fn(&mut R, &str) -> Result<(), String>,
}

impl<R> Param<R> {
    /// The group, the key's part before the dot (`link`).
    pub fn group(&self) -> &'static str {
        self.key.split_once('.').map_or(self.key, |(g, _)| g)
    }
    /// The doc comment of the group's struct, as one paragraph.
    pub fn group_doc(&self) -> String {
        paragraph(self.group_doc)
    }
    /// The doc comment of the field, as one paragraph.
    pub fn doc(&self) -> String {
        paragraph(self.doc)
    }
    /// What the value is (`time`, `size`, `choice`, `count or none`, ...).
    pub fn kind(&self) -> String {
        (self.kind)()
    }
    /// Its units, or the names it takes.
    pub fn accepts(&self) -> String {
        (self.accepts)()
    }
    /// Accepted values, for messages: the kind and its units or names.
    pub fn values(&self) -> String {
        format!("{} ({})", self.kind(), self.accepts())
    }
    /// The field's value in `r`, as text that [`Param::set`] accepts.
    pub fn show(&self, r: &R) -> String {
        (self.get)(r)
    }
    /// Sets the field in `r` from text with its unit; the error names the key.
    pub fn set(&self, r: &mut R, value: &str) -> Result<(), SimError> {
        (self.set)(r, value).map_err(|m| SimError::param(self.key, m))
    }
}

/// A doc comment's lines as one paragraph, with rustdoc's link brackets (``[`X`]``) dropped.
fn paragraph(lines: &[&str]) -> String {
    let text = lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ");
    text.replace("[`", "`").replace("`]", "`")
}

/// The row of `key`, or the unknown-key error listing every key of the table.
pub fn find<'t, R>(table: &'t [Param<R>], key: &str) -> Result<&'t Param<R>, SimError> {
    table.iter().find(|p| p.key == key).ok_or_else(|| SimError::UnknownParam {
        key: key.to_string(),
        known: table.iter().map(|p| p.key).collect::<Vec<_>>().join(", "),
    })
}

/// The text form of a value through the kind `K` (the macro's rows call this).
pub fn show<T, K: Kind<T>>(value: &T) -> String {
    K::show(value)
}

/// Declares settings structs and their parameter table from one definition.
///
/// Each field is written once, as `pub name: Type as Kind,` with its doc comment and serde
/// attributes; the macro emits the struct exactly as written (so serde's output is that of a
/// hand-written struct), a `const` table with one [`Param`] per field in declaration order, and
/// `pub mod key`, whose `key::group::field` constants are the key texts for code that names a
/// key (validation messages): a renamed field then fails to compile instead of leaving a stale
/// name in a message.
///
/// Two forms: groups that are fields of a root struct (keys `group.field`, the root written by
/// hand), and one flat struct whose keys get a prefix (`measure.batches`).
macro_rules! param_table {
    (@row $Root:ty, $key:expr, [$($doc:literal)*], $gdoc:expr, $ty:ty, $kind:ty, |$r:ident| $place:expr) => {
        $crate::sim::params::table::Param::<$Root> {
            key: $key,
            group_doc: $gdoc,
            doc: &[$($doc),*],
            kind: <$kind as $crate::sim::params::Kind<$ty>>::name,
            accepts: <$kind as $crate::sim::params::Kind<$ty>>::accepts,
            get: |$r: &$Root| $crate::sim::params::table::show::<$ty, $kind>(&$place),
            set: |$r: &mut $Root, text: &str| {
                $place = <$kind as $crate::sim::params::Kind<$ty>>::parse(text)?;
                Ok(())
            },
        }
    };
    // Groups of a root struct.
    (
        $(#[doc = $tdoc:literal])*
        pub const $TABLE:ident: [$Root:ty];
        $(
            $(#[doc = $gdoc:literal])*
            #[derive($($derive:path),*)]
            $(#[serde($($gserde:tt)*)])*
            pub struct $Group:ident in $group:ident {
                $(
                    $(#[doc = $doc:literal])*
                    $(#[serde($($fserde:tt)*)])*
                    pub $field:ident: $ty:ty as $kind:ty,
                )*
            }
        )*
    ) => {
        $(
            $(#[doc = $gdoc])*
            #[derive($($derive),*)]
            $(#[serde($($gserde)*)])*
            pub struct $Group {
                $(
                    $(#[doc = $doc])*
                    $(#[serde($($fserde)*)])*
                    pub $field: $ty,
                )*
            }

            impl $Group {
                /// The struct's doc comment, line by line (for the parameter table).
                const DOC: &'static [&'static str] = &[$($gdoc),*];
            }
        )*

        $(#[doc = $tdoc])*
        pub const $TABLE: &[$crate::sim::params::table::Param<$Root>] = &[
            $($(
                $crate::sim::params::table::param_table!(
                    @row $Root,
                    concat!(stringify!($group), ".", stringify!($field)),
                    [$($doc)*],
                    $Group::DOC,
                    $ty,
                    $kind,
                    |r| r.$group.$field
                ),
            )*)*
        ];

        /// The key texts (`key::link::bandwidth` is `"link.bandwidth"`), for code that names a
        /// key.
        #[allow(non_upper_case_globals)]
        pub mod key {
            $(
                pub mod $group {
                    $(pub const $field: &str = concat!(stringify!($group), ".", stringify!($field));)*
                }
            )*
        }
    };
    // One flat struct, its keys prefixed with `$group.`.
    (
        $(#[doc = $tdoc:literal])*
        pub const $TABLE:ident: [$Root:ident] in $group:ident;
        $(#[doc = $gdoc:literal])*
        #[derive($($derive:path),*)]
        $(#[serde($($gserde:tt)*)])*
        pub struct $Root2:ident {
            $(
                $(#[doc = $doc:literal])*
                $(#[serde($($fserde:tt)*)])*
                pub $field:ident: $ty:ty as $kind:ty,
            )*
        }
    ) => {
        $(#[doc = $gdoc])*
        #[derive($($derive),*)]
        $(#[serde($($gserde)*)])*
        pub struct $Root2 {
            $(
                $(#[doc = $doc])*
                $(#[serde($($fserde)*)])*
                pub $field: $ty,
            )*
        }

        impl $Root2 {
            /// The struct's doc comment, line by line (for the parameter table).
            const DOC: &'static [&'static str] = &[$($gdoc),*];
        }

        $(#[doc = $tdoc])*
        pub const $TABLE: &[$crate::sim::params::table::Param<$Root>] = &[
            $(
                $crate::sim::params::table::param_table!(
                    @row $Root,
                    concat!(stringify!($group), ".", stringify!($field)),
                    [$($doc)*],
                    $Root2::DOC,
                    $ty,
                    $kind,
                    |r| r.$field
                ),
            )*
        ];

        /// The key texts (`key::measure::batches` is `"measure.batches"`), for code that names
        /// a key.
        #[allow(non_upper_case_globals)]
        pub mod key {
            pub mod $group {
                $(pub const $field: &str = concat!(stringify!($group), ".", stringify!($field));)*
            }
        }
    };
}

pub(crate) use param_table;
