# pragma version 0.4.3
# A destination contract for the calls tests: it records who called it, with what value and
# which note, and refuses on demand.

calls: public(uint256)
last_sender: public(address)
last_value: public(uint256)
last_note: public(uint256)


@external
@payable
def poke(note: uint256):
    self.calls += 1
    self.last_sender = msg.sender
    self.last_value = msg.value
    self.last_note = note


@external
@payable
def refuse():
    raise "refused"
