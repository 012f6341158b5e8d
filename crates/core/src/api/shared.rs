//! A part of an object that its copies share: an object is copied for each of its writes (a pod's spec when it
//! is bound, its status at each change), and most of what a copy holds is what the copy before it held. A shared
//! part costs a count to copy, not an allocation per element, and is copied only when it is written to.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;

/// A value shared between copies, read as the value itself; a write (through `DerefMut`) copies it first when it is
/// shared (`Rc::make_mut`), so writing to one copy never changes another.
#[derive(Default)]
pub struct Shared<T>(Rc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared(Rc::new(value))
    }

    /// Whether the two share one value (then they are equal without reading it).
    pub fn ptr_eq(a: &Shared<T>, b: &Shared<T>) -> bool {
        Rc::ptr_eq(&a.0, &b.0)
    }

    /// Copies of this one value, this one included.
    pub fn copies(this: &Shared<T>) -> usize {
        Rc::strong_count(&this.0)
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Rc::make_mut(&mut self.0)
    }
}

impl<T> From<T> for Shared<T> {
    fn from(value: T) -> Self {
        Shared::new(value)
    }
}

impl<T: PartialEq> PartialEq for Shared<T> {
    fn eq(&self, other: &Shared<T>) -> bool {
        Shared::ptr_eq(self, other) || *self.0 == *other.0
    }
}

impl<T: fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'a, T> IntoIterator for &'a Shared<T>
where
    &'a T: IntoIterator,
{
    type Item = <&'a T as IntoIterator>::Item;
    type IntoIter = <&'a T as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        (&*self.0).into_iter()
    }
}

impl<'a, T: Clone> IntoIterator for &'a mut Shared<T>
where
    &'a mut T: IntoIterator,
{
    type Item = <&'a mut T as IntoIterator>::Item;
    type IntoIter = <&'a mut T as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        Rc::make_mut(&mut self.0).into_iter()
    }
}

impl<T: serde::Serialize> serde::Serialize for Shared<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(any(test, feature = "oracle"))]
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for Shared<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Shared<T>, D::Error> {
        T::deserialize(deserializer).map(Shared::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_shares_the_value_until_it_is_written_to() {
        let a: Shared<Vec<u32>> = vec![1, 2].into();
        let mut b = a.clone();
        assert!(Shared::ptr_eq(&a, &b) && Shared::copies(&a) == 2);
        assert_eq!(a, b);
        b.push(3);
        assert!(!Shared::ptr_eq(&a, &b));
        assert_eq!((&*a, &*b), (&vec![1, 2], &vec![1, 2, 3]));
        assert_eq!(a, Shared::new(vec![1, 2]), "equal values compare equal, shared or not");
        assert_eq!((&a).into_iter().sum::<u32>(), 3);
        assert_eq!(serde_json::to_string(&b).unwrap(), "[1,2,3]");
    }
}
