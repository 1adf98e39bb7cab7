use std::fmt;

pub struct Store { items: Vec<u8> }
pub struct Key(pub u64);

impl fmt::Display for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, "store") }
}
