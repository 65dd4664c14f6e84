//! The broadcast buffer: one transmitter (the driver conductor), any number of receivers
//! (client conductors), no back-pressure (`spec/broadcast.md`).

pub mod copy_receiver;
pub mod descriptor;
pub(crate) mod receiver;
pub(crate) mod transmitter;

pub use copy_receiver::CopyBroadcastReceiver;
pub use receiver::BroadcastReceiver;
pub use transmitter::BroadcastTransmitter;
