//! Crate docs: fn not_this() {}
pub mod store;
mod util;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use crate::store::{Store, Key as K};
pub use self::util::helper;

/* block /* nested fn nope() {} */ still comment */
pub const MAX: usize = 10;
static mut COUNTER: u32 = 0;

pub type Map<V> = HashMap<String, V>;

#[derive(Debug, Clone)]
pub struct Point<T> {
    pub x: T,
    pub y: T,
}

pub struct Unit;

pub enum Shape { Circle(f64), Square { side: f64 } }

pub trait Area {
    fn area(&self) -> f64;
    fn describe(&self) -> String { format!("area {}", self.area()) }
}

impl<T: Copy + Into<f64>> Area for Point<T> {
    fn area(&self) -> f64 { 0.0 }
}

impl Unit {
    pub const fn new() -> Self { Unit }

    pub async fn fetch<'a>(&'a self, key: &'a str)
        -> Result<&'a str, Box<dyn std::error::Error>>
    where
        Self: Sized,
    {
        let s = "fn fake() {";
        let c = '{';
        let r = r#"impl Fake { fn no() }"#;
        Ok(key)
    }
}

pub fn lifetimes<'a>(x: &'a str, _c: char) -> &'a str { x }

macro_rules! square {
    ($x:expr) => { $x * $x };
}

#[cfg(test)]
mod inline_tests {
    #[test]
    fn hidden() {}
}
