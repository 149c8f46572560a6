/// `dom.js`: the two helpers both pages' scripts build their markup with, loaded before them.
/// Every value from a user or a card goes into the page through `el`'s `textContent`, never as
/// markup: keeping that in one place keeps the rule in one place.
enum DOMScript {
    static let text = #"""
"use strict";
var ParleyDOM = Object.freeze({
  // An element with a class and a text, both optional; the text as text, never as markup.
  el: function (tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  },
  // A value as a string: "" for null and undefined.
  str: function (value) {
    return typeof value === "string" ? value : (value === undefined || value === null ? "" : String(value));
  }
});
"""#
}
