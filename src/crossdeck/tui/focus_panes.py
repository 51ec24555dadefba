"""The border of the pane that holds the focus is drawn in the theme's focus colour.

CSS could say this with `:focus-within`, but textual then restyles every widget inside such a
pane on each focus change (each Tab), and once before the first frame: 50 ms for the Quote
form's 85 widgets. Setting the one pane's border inline restyles nothing.
"""

from __future__ import annotations

from textual import events
from textual.color import Color
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

# containers whose border shows where the focus is (app.tcss draws them $border-blurred)
LIT_CLASSES = ("pane", "venue-form")
# the theme variable the focused pane's border takes, as textual's own focused widgets do
LIT_VARIABLE = "border"
_EDGES = ("border_top", "border_right", "border_bottom", "border_left")


def pane_of(widget: DOMNode | None) -> Widget | None:
    """The nearest container of `widget` (itself included) that shows the focus."""
    node = widget
    while node is not None and not isinstance(node, Screen):
        if isinstance(node, Widget) and any(node.has_class(name) for name in LIT_CLASSES):
            return node
        node = node.parent
    return None


class LightsFocusedPane:
    """Mixed into screens: lights the pane holding the focus, and only that one."""

    _lit_pane: Widget | None = None

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self.light_pane(pane_of(event.widget))

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        if pane_of(event.widget) is self._lit_pane:
            self.light_pane(None)

    @property
    def lit_pane(self) -> Widget | None:
        return self._lit_pane

    def light_pane(self, pane: Widget | None) -> None:
        """Light `pane` (None: none), e.g. again after the theme changed."""
        lit = self._lit_pane
        if lit is not None and lit is not pane:
            for edge in _EDGES:
                lit.styles.clear_rule(edge)
            lit.refresh(layout=True)
        self._lit_pane = pane
        if pane is not None:
            colour = Color.parse(pane.app.theme_variables.get(LIT_VARIABLE, "ansi_blue"))
            pane.styles.border = ("round", colour)
