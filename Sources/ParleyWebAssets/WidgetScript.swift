/// `widget.js`: the chat widget (`/chat/assets/widget.js`). Opens a session, follows the
/// conversation over Server-Sent Events and sends what the visitor types (docs/WEB.md). Every
/// value from a visitor, a bot or a card is set with `textContent`; links and images only for
/// the schemes checked below.
enum WidgetScript {
    static let text = #"""
"use strict";
(function () {
  var main = document.getElementById("chat");
  var bot = main.getAttribute("data-bot") || "";
  var base = "/chat/" + encodeURIComponent(bot);
  var startForm = document.getElementById("start");
  var nameInput = document.getElementById("name");
  var startButton = document.getElementById("start-button");
  var list = document.getElementById("messages");
  var composer = document.getElementById("composer");
  var textBox = document.getElementById("text");
  var sendButton = document.getElementById("send");
  var statusLine = document.getElementById("status");
  var storageKey = "parley-chat:" + bot;

  var visitor = null;          // the session's visitor id ("web-…")
  var visitorName = "";
  var events = null;           // the EventSource
  var lastId = null;           // the last event id received (for a reconnect by hand)
  var seen = new Map();        // message id → {element, reactions, from}
  var sending = false;
  var reopening = null;        // a running session re-opening (promise)

  function setStatus(text, warn) {
    statusLine.textContent = text || "";
    statusLine.className = warn ? "status warn" : "status";
  }

  var el = ParleyDOM.el, str = ParleyDOM.str;

  // An absolute URL whose scheme is one of `schemes` ("https:", …), as the browser parsed it;
  // null for anything else (javascript:, relative paths, garbage).
  function safeURL(value, schemes) {
    var text = str(value).trim();
    if (!text) return null;
    var url;
    try { url = new URL(text); } catch (e) { return null; }
    if (schemes.indexOf(url.protocol) < 0) return null;
    return url.href;
  }

  function safeImageURL(value) {
    var text = str(value).trim();
    if (/^data:image\/(png|jpeg|gif|webp|avif);/i.test(text)) return text;
    return safeURL(text, ["https:", "http:"]);
  }

  function telHref(phone) {
    var text = str(phone).trim();
    if (/^tel:/i.test(text)) text = text.slice(4);
    if (!/^\+?[0-9 ().\/-]{3,40}$/.test(text)) return null;
    return safeURL("tel:" + text.replace(/[^0-9+]/g, ""), ["tel:"]);
  }

  function mailtoHref(email) {
    var text = str(email).trim();
    if (/^mailto:/i.test(text)) text = text.slice(7);
    if (!/^[^\s@<>"'(),;:\\]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/.test(text)) return null;
    return safeURL("mailto:" + text, ["mailto:"]);
  }

  function link(text, href, external) {
    var a = el("a", null, text);
    a.href = href;
    if (external) { a.target = "_blank"; a.rel = "noopener noreferrer"; }
    return a;
  }

  // A definition line of a card: a label and a value node or text.
  function field(dl, label, value) {
    if (value === null || value === undefined || value === "") return;
    dl.appendChild(el("dt", null, label));
    var dd = el("dd");
    if (typeof value === "string") dd.textContent = value; else dd.appendChild(value);
    dl.appendChild(dd);
  }

  function renderVCard(fields, fallback) {
    var card = el("div", "card vcard");
    card.setAttribute("role", "group");
    var name = str(fields.name) || str(fields.user) || fallback;
    card.setAttribute("aria-label", "Contact card: " + name);
    var avatar = safeImageURL(fields.avatar);
    if (avatar) {
      var img = el("img", "avatar");
      img.src = avatar; img.alt = ""; img.referrerPolicy = "no-referrer";
      card.appendChild(img);
    }
    card.appendChild(el("p", "card-title", name));
    var sub = [str(fields.title), str(fields.org)].filter(Boolean).join(", ");
    if (sub) card.appendChild(el("p", "card-sub", sub));
    var dl = el("dl");
    if (fields.phone) {
      var tel = telHref(fields.phone);
      field(dl, "Phone", tel ? link(str(fields.phone), tel, false) : str(fields.phone));
    }
    if (fields.email) {
      var mail = mailtoHref(fields.email);
      field(dl, "Email", mail ? link(str(fields.email), mail, false) : str(fields.email));
    }
    if (fields.url) {
      var web = safeURL(fields.url, ["https:"]);
      field(dl, "Web", web ? link(str(fields.url), web, true) : str(fields.url));
    }
    if (dl.childNodes.length) card.appendChild(dl);
    return card;
  }

  function renderLink(fields, fallback) {
    var card = el("div", "card link");
    var title = str(fields.title) || str(fields.text) || str(fields.url) || fallback;
    var href = safeURL(fields.url, ["https:", "http:"]);
    var heading = el("p", "card-title");
    if (href) heading.appendChild(link(title, href, true)); else heading.textContent = title;
    card.appendChild(heading);
    if (fields.description) card.appendChild(el("p", "description", str(fields.description)));
    var image = safeImageURL(fields.image);
    if (image) {
      var img = el("img");
      img.src = image; img.alt = ""; img.referrerPolicy = "no-referrer";
      card.appendChild(img);
    }
    return card;
  }

  function renderImage(fields, fallback) {
    var src = safeImageURL(fields.url);
    if (!src) return el("div", "bubble", fallback || str(fields.url));
    var card = el("div", "card image");
    var img = el("img");
    img.src = src;
    img.alt = str(fields.alt) || str(fields.caption) || fallback || "Image";
    img.referrerPolicy = "no-referrer";
    var width = parseInt(fields.width, 10), height = parseInt(fields.height, 10);
    if (width > 0 && height > 0) { img.width = width; img.height = height; }
    card.appendChild(img);
    return card;
  }

  function renderGreeting(fields, fallback) {
    var card = el("div", "card greeting");
    card.setAttribute("role", "group");
    card.setAttribute("aria-label", "Greeting");
    if (fields.summary) card.appendChild(el("p", "summary", str(fields.summary)));
    card.appendChild(el("p", "card-text", str(fields.text) || fallback));
    return card;
  }

  function renderBody(message) {
    var fields = message.fields && typeof message.fields === "object" ? message.fields : {};
    var fallback = str(message.text);
    switch (message.type) {
      case "text": return el("div", "bubble", str(fields.text) || fallback);
      case "greeting": return renderGreeting(fields, fallback);
      case "vcard": return renderVCard(fields, fallback);
      case "link": return renderLink(fields, fallback);
      case "image": return renderImage(fields, fallback);
      default: return el("div", "bubble", fallback);
    }
  }

  // The reactions under a message as chips (emoji and count; pressed when the visitor's is
  // among them: selecting takes it back). Under the bot's messages 👍 and 👎 are offered too.
  var offered = ["\uD83D\uDC4D", "\uD83D\uDC4E"];
  function renderReactions(record) {
    var box = record.reactionBox;
    while (box.firstChild) box.removeChild(box.firstChild);
    var emojis = Object.keys(record.reactions).filter(function (emoji) { return record.reactions[emoji].length > 0; });
    if (record.from === "bot") offered.forEach(function (emoji) { if (emojis.indexOf(emoji) < 0) emojis.push(emoji); });
    emojis.forEach(function (emoji) {
      var users = record.reactions[emoji] || [];
      var mine = visitor !== null && users.indexOf(visitor) >= 0;
      var chip = el("button", users.length ? "chip" : "chip offer", users.length ? emoji + " " + users.length : emoji);
      chip.type = "button";
      chip.setAttribute("aria-pressed", mine ? "true" : "false");
      chip.setAttribute("aria-label", users.length
        ? emoji + " " + users.length + (mine ? ", yours: select to take it back" : ": select to add yours")
        : "React " + emoji);
      chip.addEventListener("click", function () { react(record.id, emoji, !mine); });
      box.appendChild(chip);
    });
    box.hidden = !box.firstChild;
  }

  function timeText(value) {
    var date = new Date(str(value));
    if (isNaN(date.getTime())) return null;
    return date;
  }

  function addMessage(message) {
    var id = str(message.id);
    if (!id || seen.has(id)) return;   // a replay after a reconnect: shown already
    var from = message.from === "visitor" ? "visitor" : "bot";
    var item = el("li", "msg from-" + from + " type-" + str(message.type).replace(/[^a-z0-9_-]/gi, ""));
    item.setAttribute("data-id", id);
    var senderName = from === "visitor" ? "You" : str(message.sender && message.sender.name) || "Bot";
    item.appendChild(el("span", "sender", senderName));
    if (message.quote && typeof message.quote === "object") {
      var quote = el("blockquote", "quote", str(message.quote.text));
      quote.setAttribute("aria-label", "In reply to");
      item.appendChild(quote);
    }
    item.appendChild(renderBody(message));
    var record = { id: id, from: from, element: item, reactions: {}, reactionBox: el("div", "reactions") };
    record.reactionBox.setAttribute("role", "group");
    record.reactionBox.setAttribute("aria-label", "Reactions");
    if (message.reactions && typeof message.reactions === "object") {
      Object.keys(message.reactions).forEach(function (emoji) {
        var users = message.reactions[emoji];
        record.reactions[emoji] = Array.isArray(users) ? users.map(str) : [];
      });
    }
    item.appendChild(record.reactionBox);
    renderReactions(record);
    var date = timeText(message.time);
    if (date) {
      var time = el("time", null, date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
      time.dateTime = date.toISOString();
      item.appendChild(time);
    }
    seen.set(id, record);
    var atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    list.appendChild(item);
    if (atBottom || from === "visitor") list.scrollTop = list.scrollHeight;
  }

  function applyReaction(event) {
    var record = seen.get(str(event.message));
    if (!record) return;
    var emoji = str(event.emoji), user = str(event.user);
    var users = record.reactions[emoji] || [];
    var at = users.indexOf(user);
    if (event.added && at < 0) users.push(user);
    if (!event.added && at >= 0) users.splice(at, 1);
    record.reactions[emoji] = users;
    renderReactions(record);
  }

  function parse(data) {
    try { return JSON.parse(data); } catch (e) { return null; }
  }

  function closeEvents() {
    if (events) { events.close(); events = null; }
  }

  function openEvents() {
    closeEvents();
    var url = base + "/events" + (lastId ? "?after=" + encodeURIComponent(lastId) : "");
    var source = new EventSource(url);
    events = source;
    source.addEventListener("open", function () { if (events === source) setStatus("Connected"); });
    source.addEventListener("message", function (event) {
      if (event.lastEventId) lastId = event.lastEventId;
      var message = parse(event.data);
      if (message) addMessage(message);
    });
    source.addEventListener("reaction", function (event) {
      if (event.lastEventId) lastId = event.lastEventId;
      var reaction = parse(event.data);
      if (reaction) applyReaction(reaction);
    });
    source.addEventListener("error", function () {
      if (events !== source) return;
      if (source.readyState === EventSource.CLOSED) {
        // Refused (no live session, say): open the session again, then the stream.
        setStatus("Reconnecting…", true);
        closeEvents();
        window.setTimeout(function () { reopen().then(openEvents, function () { setStatus("Disconnected", true); }); }, 1000);
      } else {
        setStatus("Reconnecting…", true);   // the browser retries by itself, with Last-Event-ID
      }
    });
  }

  function postJSON(path, body) {
    return fetch(base + path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body)
    });
  }

  function errorText(response) {
    return response.json().then(function (body) {
      return body && body.error ? str(body.error) : "Error " + response.status;
    }, function () { return "Error " + response.status; });
  }

  function retryAfterSeconds(response) {
    var seconds = parseInt(response.headers.get("Retry-After") || "", 10);
    return isNaN(seconds) || seconds < 1 ? 1 : Math.min(seconds, 60);
  }

  function wait(seconds) {
    return new Promise(function (resolve) { window.setTimeout(resolve, seconds * 1000); });
  }

  // POST /session (with the name, when there is one); on 429 waits as told and tries again.
  function openSession(name) {
    var body = name ? { name: name } : {};
    return postJSON("/session", body).then(function (response) {
      if (response.status === 429) {
        setStatus("Slow down", true);
        return wait(retryAfterSeconds(response)).then(function () { return openSession(name); });
      }
      if (!response.ok) return errorText(response).then(function (text) { throw new Error(text); });
      return response.json().then(function (session) {
        var previous = visitor;
        visitor = str(session.visitor);
        visitorName = str(session.name);
        if (previous !== null && previous !== visitor) {
          // A new session (the old one ended): its message ids start again.
          seen = new Map();
          lastId = null;
          list.appendChild(el("li", "separator", "New conversation"));
        }
        try { window.sessionStorage.setItem(storageKey, "1"); } catch (e) { /* private mode */ }
        return session;
      });
    });
  }

  function reopen() {
    if (!reopening) {
      reopening = openSession(visitorName).then(function (session) {
        reopening = null; return session;
      }, function (error) { reopening = null; throw error; });
    }
    return reopening;
  }

  function start(name) {
    startButton.disabled = true;
    setStatus("Connecting…");
    openSession(name).then(function (session) {
      startForm.hidden = true;
      composer.hidden = false;
      setStatus("Connected as " + (str(session.name) || "Visitor"));
      openEvents();
      textBox.focus();
    }, function (error) {
      startButton.disabled = false;
      setStatus("Could not start the chat: " + error.message, true);
    });
  }

  // A message's client id: a repeat of the same POST (the answer was cut) is stored once.
  function newClientId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }

  // How often a message cut by the network or a restarting server is sent again (after 1, 2,
  // 4, … 16 s), with the same client id, before the visitor is told it was not sent.
  var resendLimit = 6;

  // POST /messages; 429: "Slow down" and again after Retry-After; 401: a new session, then
  // again; no answer or 502/503: the same message with the same client id, after a pause.
  function send(text, clientId, attempt, resends) {
    function again() {
      setStatus("Not sent yet: trying again…", true);
      return wait(Math.min(16, Math.pow(2, resends))).then(function () { return send(text, clientId, attempt, resends + 1); });
    }
    return postJSON("/messages", { text: text, client_id: clientId }).then(function (response) {
      if (response.status === 202 || response.ok) { setStatus("Connected"); return true; }
      if (response.status === 429) {
        setStatus("Slow down", true);
        return wait(retryAfterSeconds(response)).then(function () { return send(text, clientId, attempt, resends); });
      }
      if (response.status === 401 && attempt < 2) {
        return reopen().then(function () { openEvents(); return send(text, clientId, attempt + 1, resends); });
      }
      if ((response.status === 502 || response.status === 503) && resends < resendLimit) return again();
      return errorText(response).then(function (message) { setStatus(message, true); return false; });
    }, function () {
      if (resends < resendLimit) return again();
      setStatus("Not sent: no connection", true);
      return false;
    });
  }

  function react(messageId, emoji, added) {
    postJSON("/reactions", { message: messageId, emoji: emoji, added: added }).then(function (response) {
      if (response.ok) applyReaction({ message: messageId, emoji: emoji, user: visitor, added: added });
      else if (response.status === 429) setStatus("Slow down", true);
      else if (response.status === 401) reopen().then(openEvents);
    });
  }

  function submitMessage() {
    var text = textBox.value;
    if (!text.trim() || sending) return;
    sending = true;
    sendButton.disabled = true;
    function done(sent) {
      if (sent === true) textBox.value = "";
      sending = false;
      sendButton.disabled = false;
      textBox.focus();
    }
    send(text, newClientId(), 0, 0).then(done, function () {
      setStatus("Not sent: the chat could not be opened again", true);
      done(false);
    });
  }

  startForm.addEventListener("submit", function (event) {
    event.preventDefault();
    start(nameInput.value.trim());
  });
  composer.addEventListener("submit", function (event) {
    event.preventDefault();
    submitMessage();
  });
  textBox.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submitMessage();
    }
  });

  // A visitor coming back in this tab resumes their session (the cookie says which).
  var resumed = false;
  try { resumed = window.sessionStorage.getItem(storageKey) === "1"; } catch (e) { resumed = false; }
  if (resumed) start("");
})();

"""#
}
