//! A scalar's text in 16 bytes and a collection's items in 15, both aligned to a byte, so that a
//! node's value fits in 16 bytes and a node in 24 ([`super::Node`]).
//!
//! A large file's tree is mostly nodes (a mapping entry is two), so every byte of a node is
//! counted millions of times (issue 17). The standard types do not fit: `Box<[T]>` is 16 bytes and
//! a small string keeping 15 bytes inline is 16, and an enum of them needs a 17th byte for its
//! variant. Here the text's last byte is an enum of 17 values (the inline length, or "on the
//! heap"), whose 239 unused values the compiler gives to the enclosing enums' variants, and the
//! items are a pointer and a 7-byte length packed into the 15 bytes before it.
//!
//! In the components files of the corpus's 16 providers, 81 % of the scalars are 15 bytes or
//! shorter; 5 % are 16 to 24 bytes, which a 24-byte inline string kept inline and which now take
//! a heap allocation.
//!
//! A longer text is shared (`Arc<str>`), and the loader gives equal texts one copy
//! ([`SharedTexts`]): the longer scalars are a third to a half of a components file's bytes, mostly
//! CustomResourceDefinitions' descriptions, and 59 % to 90 % of those bytes repeat within the
//! file (the same field described in every version and every type).

use std::fmt;
use std::marker::PhantomData;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::sync::Arc;

/// How many bytes of text a [`ScalarText`] keeps inline.
const INLINE: usize = 15;

/// A [`ScalarText`]'s last byte. An enum and not a `u8` so that the compiler knows the values it
/// never takes and can store the variant of an enum holding a `ScalarText` in them.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Last {
    Inline0 = 0,
    Inline1,
    Inline2,
    Inline3,
    Inline4,
    Inline5,
    Inline6,
    Inline7,
    Inline8,
    Inline9,
    Inline10,
    Inline11,
    Inline12,
    Inline13,
    Inline14,
    Inline15,
    Heap,
}

/// The `Last` of an inline text of each length.
const INLINE_LENGTHS: [Last; INLINE + 1] = [
    Last::Inline0,
    Last::Inline1,
    Last::Inline2,
    Last::Inline3,
    Last::Inline4,
    Last::Inline5,
    Last::Inline6,
    Last::Inline7,
    Last::Inline8,
    Last::Inline9,
    Last::Inline10,
    Last::Inline11,
    Last::Inline12,
    Last::Inline13,
    Last::Inline14,
    Last::Inline15,
];

/// Bytes 0 to 8 of a heap text hold its pointer, 8 to 15 its length (7 bytes, little-endian).
const POINTER_BYTES: usize = std::mem::size_of::<*mut u8>();
const LENGTH_BYTES: usize = INLINE - POINTER_BYTES;

/// A scalar's text: inline up to 15 bytes, else an `Arc<str>` that equal texts share.
///
/// The bytes are `MaybeUninit` so that a heap text's pointer keeps its provenance when the value
/// is moved or copied (a copy typed as `u8` would not carry it).
#[repr(C)]
pub struct ScalarText {
    data: [MaybeUninit<u8>; INLINE],
    last: Last,
}

// SAFETY: a `ScalarText` holds its text as an `Arc<str>` does, which is `Send`.
unsafe impl Send for ScalarText {}
// SAFETY: as for `Send` (`Arc<str>` is `Sync`); `&ScalarText` only reads.
unsafe impl Sync for ScalarText {}

impl ScalarText {
    /// The empty text.
    pub const fn empty() -> Self {
        Self {
            data: [MaybeUninit::new(0); INLINE],
            last: Last::Inline0,
        }
    }

    fn inline(text: &str) -> Self {
        debug_assert!(text.len() <= INLINE);
        let mut value = Self::empty();
        for (slot, byte) in value.data.iter_mut().zip(text.bytes()) {
            *slot = MaybeUninit::new(byte);
        }
        value.last = INLINE_LENGTHS[text.len()];
        value
    }

    fn heap(text: Arc<str>) -> Self {
        let length = (text.len() as u64).to_le_bytes();
        let pointer = Arc::into_raw(text).cast::<u8>().cast_mut();
        let mut value = Self::empty();
        // SAFETY: `data` has room for a pointer at 0; the write is unaligned as `data` is.
        unsafe {
            value
                .data
                .as_mut_ptr()
                .cast::<*mut u8>()
                .write_unaligned(pointer)
        };
        for (slot, byte) in value.data[POINTER_BYTES..].iter_mut().zip(length) {
            *slot = MaybeUninit::new(byte);
        }
        value.last = Last::Heap;
        value
    }

    /// The pointer and length of a heap text.
    fn heap_parts(&self) -> (*mut u8, usize) {
        debug_assert!(self.last == Last::Heap);
        // SAFETY: a heap text wrote a pointer at 0 (`heap`).
        let pointer = unsafe { self.data.as_ptr().cast::<*mut u8>().read_unaligned() };
        let mut length = [0u8; 8];
        for (byte, slot) in length.iter_mut().zip(&self.data[POINTER_BYTES..]) {
            // SAFETY: `heap` initialised the length's bytes.
            *byte = unsafe { slot.assume_init() };
        }
        (pointer, u64::from_le_bytes(length) as usize)
    }

    pub fn as_str(&self) -> &str {
        let (pointer, length) = match self.last {
            Last::Heap => {
                let (pointer, length) = self.heap_parts();
                (pointer.cast_const(), length)
            }
            inline => (self.data.as_ptr().cast::<u8>(), inline as usize),
        };
        // SAFETY: the bytes are the UTF-8 text this value was made from: `length` initialised
        // bytes of `data`, or the `Arc<str>` that `heap` took, which this value keeps alive.
        unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(pointer, length)) }
    }

    /// The `Arc<str>` a heap text holds, as a raw pointer `Arc::from_raw` takes back.
    fn heap_arc(&self) -> *const str {
        let (pointer, length) = self.heap_parts();
        std::ptr::slice_from_raw_parts(pointer.cast_const(), length) as *const str
    }

    /// The text as a `String` (a copy: a heap text may be shared).
    pub fn into_string(self) -> String {
        self.as_str().to_string()
    }
}

const _: () = assert!(LENGTH_BYTES == 7 && std::mem::size_of::<ScalarText>() == 16);

impl Drop for ScalarText {
    fn drop(&mut self) {
        if self.last == Last::Heap {
            // SAFETY: `heap` made this pointer and length with `Arc::into_raw`, and this value
            // holds one count of it, given back once here.
            drop(unsafe { Arc::from_raw(self.heap_arc()) });
        }
    }
}

impl From<&str> for ScalarText {
    fn from(text: &str) -> Self {
        if text.len() <= INLINE {
            Self::inline(text)
        } else {
            Self::heap(Arc::from(text))
        }
    }
}

impl From<String> for ScalarText {
    fn from(text: String) -> Self {
        Self::from(text.as_str())
    }
}

impl Default for ScalarText {
    fn default() -> Self {
        Self::empty()
    }
}

impl Clone for ScalarText {
    /// A heap text is shared, not copied.
    fn clone(&self) -> Self {
        if self.last == Last::Heap {
            // SAFETY: this value holds a count of the `Arc` (`heap`); the copy below holds one
            // more and gives it back when dropped.
            unsafe { Arc::increment_strong_count(self.heap_arc()) };
        }
        // The bytes are copied as `MaybeUninit`, which keeps the pointer's provenance.
        Self {
            data: self.data,
            last: self.last,
        }
    }
}

/// The long texts one loader has made, so that an equal text is shared rather than copied: the
/// loader asks here for every scalar's text ([`SharedTexts::text`]).
///
/// Hashed with foldhash, seeded at random per process, so that a file cannot be written to make
/// the lookups collide without knowing the seed. The standard library's SipHash made render of
/// AWS's components 5.6 % more instructions; with foldhash the sharing costs 2.2 % there (and
/// 1.7 % for lint of a 20 MB file), with fewer allocations and page faults.
#[derive(Default)]
pub(super) struct SharedTexts {
    seen: std::collections::HashSet<Arc<str>, foldhash::fast::RandomState>,
}

impl SharedTexts {
    /// `text` as a scalar's text: inline when short, else the copy made for an equal text
    /// before, or a new one that later equal texts share.
    pub(super) fn text(&mut self, text: &str) -> ScalarText {
        if text.len() <= INLINE {
            return ScalarText::inline(text);
        }
        if let Some(seen) = self.seen.get(text) {
            return ScalarText::heap(Arc::clone(seen));
        }
        let new: Arc<str> = Arc::from(text);
        self.seen.insert(Arc::clone(&new));
        ScalarText::heap(new)
    }
}

impl Deref for ScalarText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for ScalarText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for ScalarText {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for ScalarText {}

impl PartialEq<str> for ScalarText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ScalarText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::hash::Hash for ScalarText {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for ScalarText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for ScalarText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

/// A collection's items: a `Box<[T]>` as a pointer and a 7-byte length, aligned to a byte.
/// They never grow after loading; a transformation's few insertions go through [`Items::edit`].
#[repr(C, packed)]
pub struct Items<T> {
    pointer: NonNull<T>,
    length: [u8; LENGTH_BYTES],
    owns: PhantomData<T>,
}

// SAFETY: `Items<T>` owns its items as a `Box<[T]>` does.
unsafe impl<T: Send> Send for Items<T> {}
// SAFETY: as for `Send`; `&Items<T>` only gives out `&T`.
unsafe impl<T: Sync> Sync for Items<T> {}

impl<T> Items<T> {
    pub fn len(&self) -> usize {
        let mut length = [0u8; 8];
        length[..LENGTH_BYTES].copy_from_slice(&self.length);
        u64::from_le_bytes(length) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn into_vec(self) -> Vec<T> {
        let this = ManuallyDrop::new(self);
        let (pointer, length) = (this.pointer, this.len());
        // SAFETY: `From<Vec<T>>` made this pointer and length from a `Box<[T]>`, and `this` will
        // not drop it again.
        unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(pointer.as_ptr(), length)) }
            .into_vec()
    }

    /// Changes the items as a `Vec`. They are packed without spare room, so each change moves
    /// them into a `Vec` and back: for a transformation's few insertions, not for building.
    pub fn edit<R>(&mut self, change: impl FnOnce(&mut Vec<T>) -> R) -> R {
        let mut items = std::mem::take(self).into_vec();
        let result = change(&mut items);
        *self = Items::from(items);
        result
    }
}

impl<T> From<Vec<T>> for Items<T> {
    fn from(items: Vec<T>) -> Self {
        let items = Box::leak(items.into_boxed_slice());
        let length = (items.len() as u64).to_le_bytes();
        let mut packed = [0u8; LENGTH_BYTES];
        packed.copy_from_slice(&length[..LENGTH_BYTES]);
        Self {
            pointer: NonNull::from(items).cast::<T>(),
            length: packed,
            owns: PhantomData,
        }
    }
}

impl<T> FromIterator<T> for Items<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Self::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> Drop for Items<T> {
    fn drop(&mut self) {
        let (pointer, length) = (self.pointer, self.len());
        // SAFETY: `From<Vec<T>>` made this pointer and length from a `Box<[T]>`, dropped once.
        drop(unsafe {
            Box::from_raw(std::ptr::slice_from_raw_parts_mut(pointer.as_ptr(), length))
        });
    }
}

impl<T> Deref for Items<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        let pointer = self.pointer;
        // SAFETY: a live `Box<[T]>`'s pointer and length, borrowed for as long as `self` is.
        unsafe { std::slice::from_raw_parts(pointer.as_ptr(), self.len()) }
    }
}

impl<T> DerefMut for Items<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        let pointer = self.pointer;
        // SAFETY: as for `deref`, borrowed mutably for as long as `self` is.
        unsafe { std::slice::from_raw_parts_mut(pointer.as_ptr(), self.len()) }
    }
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Self::from(Vec::new())
    }
}

impl<T: Clone> Clone for Items<T> {
    fn clone(&self) -> Self {
        Self::from(self.to_vec())
    }
}

impl<T: PartialEq> PartialEq for Items<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: fmt::Debug> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T> IntoIterator for Items<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a, T> IntoIterator for &'a Items<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Items<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn texts_read_back_inline_and_on_the_heap() {
        for text in [
            "",
            "a",
            "fifteen bytes!!",
            "sixteen bytes!!!",
            "é",
            "ééééééé",  // 14 bytes
            "éééééééé", // 16 bytes
            "cluster.x-k8s.io/provider",
            "a much longer description, as CustomResourceDefinitions have on every field",
        ] {
            let value = ScalarText::from(text);
            assert_eq!(value.as_str(), text);
            assert_eq!(value.last == Last::Heap, text.len() > INLINE, "{text}");
            assert_eq!(ScalarText::from(text.to_string()), text);
            let mut spare = String::with_capacity(text.len() + 30);
            spare.push_str(text);
            assert_eq!(ScalarText::from(spare).as_str(), text);
            let copy = value.clone();
            drop(value);
            assert_eq!(copy, text);
            assert_eq!(format!("{copy:?}"), format!("{text:?}"));
        }
        assert_eq!(ScalarText::default(), "");
        assert_eq!(ScalarText::empty().len(), 0);
    }

    #[test]
    fn equal_long_texts_share_one_copy() {
        let mut texts = SharedTexts::default();
        let long = "a field described the same way in every version of a CRD";
        let first = texts.text(long);
        // An equal text elsewhere in memory, as the next document's scanner would give it.
        let elsewhere = String::from(long);
        let second = texts.text(&elsewhere);
        let other = texts.text("another description, as long as the first one");
        assert_eq!((first.as_str(), second.as_str()), (long, long));
        assert_eq!(first.as_ptr(), second.as_ptr());
        assert_ne!(first.as_ptr(), other.as_ptr());
        // Short texts stay inline, each in its own value.
        let (a, b) = (texts.text("fifteen bytes!!"), texts.text("fifteen bytes!!"));
        assert!(a.last == Last::Inline15);
        assert_ne!(a.as_ptr(), b.as_ptr());
        // The text outlives the table and every other holder.
        drop(texts);
        drop(first);
        assert_eq!(second, long);
        // A copy shares the text too; each value gives its count back once.
        let copy = second.clone();
        assert_eq!(copy.as_ptr(), second.as_ptr());
        drop(second);
        assert_eq!(copy, long);
        assert_eq!(copy.clone().into_string(), long);
        let shared = Arc::<str>::from(long);
        let held = ScalarText::heap(Arc::clone(&shared));
        let copies: Vec<ScalarText> = (0..3).map(|_| held.clone()).collect();
        assert_eq!(Arc::strong_count(&shared), 5);
        drop(copies);
        drop(held);
        assert_eq!(Arc::strong_count(&shared), 1);
    }

    #[test]
    fn texts_move_between_threads() {
        let long = ScalarText::from("a text of more than fifteen bytes");
        let back = std::thread::spawn(move || long).join().expect("thread");
        assert_eq!(back, "a text of more than fifteen bytes");
    }

    #[test]
    fn items_own_their_elements() {
        let counted = Rc::new(());
        let items: Items<Rc<()>> = (0..5).map(|_| counted.clone()).collect();
        assert_eq!((items.len(), Rc::strong_count(&counted)), (5, 6));
        let copy = items.clone();
        assert_eq!(Rc::strong_count(&counted), 11);
        drop(items);
        assert_eq!(Rc::strong_count(&counted), 6);
        let mut grown = copy.into_vec();
        grown.push(counted.clone());
        let grown = Items::from(grown);
        assert_eq!((grown.len(), Rc::strong_count(&counted)), (6, 7));
        assert_eq!(grown.into_iter().count(), 6);
        assert_eq!(Rc::strong_count(&counted), 1);
    }

    #[test]
    fn items_read_and_write_as_slices() {
        let mut items = Items::from(vec![3, 1, 2]);
        items.sort_unstable();
        assert_eq!(&*items, &[1, 2, 3]);
        for item in &mut items {
            *item *= 10;
        }
        assert_eq!((&items).into_iter().sum::<i32>(), 60);
        assert_eq!(items, Items::from(vec![10, 20, 30]));
        assert_eq!(format!("{items:?}"), "[10, 20, 30]");
        let empty = Items::<String>::default();
        assert!(empty.is_empty() && empty.into_vec().is_empty());
    }

    #[test]
    fn items_are_edited_as_a_vec() {
        let mut items = Items::from(vec![String::from("a"), String::from("c")]);
        let length = items.edit(|items| {
            items.insert(1, String::from("b"));
            items.len()
        });
        assert_eq!(length, 3);
        assert_eq!(&*items, &["a", "b", "c"]);
        items.edit(|items| items.clear());
        assert!(items.is_empty());
    }

    #[test]
    fn enums_keep_their_variant_in_the_text_s_spare_values() {
        #[allow(dead_code)]
        enum Value {
            Text(ScalarText),
            List(Items<u64>),
            Pairs(Items<(u64, u64)>),
        }
        assert_eq!(std::mem::size_of::<Items<u64>>(), 15);
        assert_eq!(std::mem::size_of::<Value>(), 16);
        assert_eq!(std::mem::size_of::<Option<Value>>(), 16);
    }
}
