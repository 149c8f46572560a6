/// `console.js`: the agents' console (`/console/assets/console.js`). Signs in with the agent's
/// token, keeps the CSRF value in memory only and sends it as `X-Parley-CSRF` on every request
/// (the live stream too: it is read with `fetch`, since an `EventSource` cannot send headers),
/// renders the `tickets` and `broadcasts` events, and takes, answers and resolves tickets
/// (docs/WEB.md). Every value from a customer, an agent or a bot is set with `textContent`.
enum ConsoleScript {
    static let text = #"""
"use strict";
(function () {
  var api = "/console/api";
  var signinForm = document.getElementById("signin");
  var tokenInput = document.getElementById("token");
  var signinButton = document.getElementById("signin-button");
  var signinError = document.getElementById("signin-error");
  var who = document.getElementById("who");
  var signoutButton = document.getElementById("signout");
  var workspace = document.getElementById("workspace");
  var ticketList = document.getElementById("tickets");
  var ticketsEmpty = document.getElementById("tickets-empty");
  var ticketNone = document.getElementById("ticket-none");
  var ticketView = document.getElementById("ticket-view");
  var ticketTitle = document.getElementById("ticket-title");
  var details = document.getElementById("ticket-details");
  var conversation = document.getElementById("conversation");
  var ticketError = document.getElementById("ticket-error");
  var takeButton = document.getElementById("take");
  var resolveButton = document.getElementById("resolve");
  var replyForm = document.getElementById("reply");
  var replyText = document.getElementById("reply-text");
  var replyButton = document.getElementById("reply-button");
  var broadcastList = document.getElementById("broadcasts");
  var broadcastsEmpty = document.getElementById("broadcasts-empty");

  var csrf = null;            // in memory only: a reload signs in again
  var agent = null;
  var tickets = [];           // the last `tickets` event's list
  var selected = null;        // "queue/number" of the ticket shown
  var current = null;         // the ticket shown (from the list, or an action's answer)
  var streamAbort = null;
  var lastEventId = null;
  var retryDelay = 1000;
  var busy = false;
  var lastTickets = null;     // the last lists as received: the stream sends them again unchanged
  var lastBroadcasts = null;

  var el = ParleyDOM.el, str = ParleyDOM.str;

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function keyOf(ticket) { return str(ticket.queue) + "/" + str(ticket.number); }

  function ticketPath(ticket) {
    return api + "/tickets/" + encodeURIComponent(str(ticket.queue)) + "/" + encodeURIComponent(str(ticket.number));
  }

  function age(opened) {
    var date = new Date(str(opened));
    if (isNaN(date.getTime())) return "";
    var seconds = Math.max(0, Math.round((Date.now() - date.getTime()) / 1000));
    if (seconds < 60) return "just now";
    var minutes = Math.round(seconds / 60);
    if (minutes < 60) return minutes + " min";
    var hours = Math.floor(minutes / 60);
    if (hours < 48) return hours + " h " + (minutes % 60) + " min";
    return Math.floor(hours / 24) + " days";
  }

  function request(method, path, body) {
    var headers = { "Accept": "application/json" };
    if (csrf) headers["X-Parley-CSRF"] = csrf;
    var init = { method: method, credentials: "same-origin", headers: headers, cache: "no-store" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (response) {
      return response.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        return { status: response.status, ok: response.ok, body: json };
      });
    });
  }

  function errorOf(answer, fallback) {
    return answer.body && answer.body.error ? str(answer.body.error) : fallback + " (" + answer.status + ")";
  }

  // MARK: signing in and out

  function signedIn(session) {
    csrf = str(session.csrf);
    agent = str(session.agent);
    var queues = Array.isArray(session.queues) ? session.queues.map(str).join(", ") : "";
    who.textContent = "Signed in as " + agent + (queues ? " — queues: " + queues : "");
    signinForm.hidden = true;
    workspace.hidden = false;
    signoutButton.hidden = false;
    tokenInput.value = "";
    openStream();
    var first = ticketList.querySelector("button");
    (first || signoutButton).focus();
  }

  function signedOut(message) {
    csrf = null; agent = null; tickets = []; selected = null; current = null; lastEventId = null;
    lastTickets = null; lastBroadcasts = null;
    if (streamAbort) { streamAbort.abort(); streamAbort = null; }
    who.textContent = "";
    workspace.hidden = true;
    signoutButton.hidden = true;
    signinForm.hidden = false;
    signinError.textContent = message || "";
    clear(ticketList); clear(broadcastList); clear(conversation); clear(details);
    tokenInput.focus();
  }

  signinForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var token = tokenInput.value;
    if (!token) { signinError.textContent = "Enter your agent token."; tokenInput.focus(); return; }
    signinButton.disabled = true;
    signinError.textContent = "";
    request("POST", api + "/session", { token: token }).then(function (answer) {
      signinButton.disabled = false;
      if (answer.ok && answer.body && answer.body.csrf) { signedIn(answer.body); return; }
      signinError.textContent = answer.status === 401 ? "Wrong token." : errorOf(answer, "Could not sign in");
      tokenInput.focus();
    }, function () {
      signinButton.disabled = false;
      signinError.textContent = "Could not reach the server.";
    });
  });

  signoutButton.addEventListener("click", function () {
    request("DELETE", api + "/session").then(function () { signedOut("Signed out."); }, function () { signedOut("Signed out."); });
  });

  // MARK: the live stream (Server-Sent Events read with fetch, so it carries X-Parley-CSRF)

  function openStream() {
    if (streamAbort) streamAbort.abort();
    var controller = new AbortController();
    streamAbort = controller;
    var headers = { "Accept": "text/event-stream", "X-Parley-CSRF": csrf };
    if (lastEventId) headers["Last-Event-ID"] = lastEventId;
    fetch(api + "/events", { credentials: "same-origin", headers: headers, cache: "no-store", signal: controller.signal })
      .then(function (response) {
        if (response.status === 401 || response.status === 403) { signedOut("Your session ended: sign in again."); return null; }
        if (!response.ok || !response.body) throw new Error("stream answered " + response.status);
        retryDelay = 1000;
        return readStream(response.body.getReader(), controller);
      })
      .then(function () { if (streamAbort === controller) reconnect(controller); },
            function () { if (streamAbort === controller) reconnect(controller); });
  }

  function reconnect(controller) {
    if (!csrf || controller.signal.aborted) return;
    window.setTimeout(function () { if (streamAbort === controller && csrf) openStream(); }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
  }

  function readStream(reader, controller) {
    var decoder = new TextDecoder();
    var buffer = "";
    var type = "", data = [], id = null;
    function line(text) {
      if (text.charAt(text.length - 1) === "\r") text = text.slice(0, -1);
      if (text === "") {
        if (id !== null) lastEventId = id;
        if (data.length) dispatch(type || "message", data.join("\n"));
        type = ""; data = []; id = null;
        return;
      }
      if (text.charAt(0) === ":") return;   // keep-alive
      var colon = text.indexOf(":");
      var name = colon < 0 ? text : text.slice(0, colon);
      var value = colon < 0 ? "" : text.slice(colon + 1);
      if (value.charAt(0) === " ") value = value.slice(1);
      if (name === "event") type = value;
      else if (name === "data") data.push(value);
      else if (name === "id") id = value;
    }
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done || controller.signal.aborted) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        var lines = buffer.split("\n");
        buffer = lines.pop();
        lines.forEach(line);
        return pump();
      });
    }
    return pump();
  }

  function dispatch(type, data) {
    var body;
    try { body = JSON.parse(data); } catch (e) { return; }
    if (type === "tickets" && body && Array.isArray(body.tickets)) {
      if (data !== lastTickets) { lastTickets = data; renderTickets(body.tickets); }
    } else if (type === "broadcasts" && body && Array.isArray(body.broadcasts)) {
      if (data !== lastBroadcasts) { lastBroadcasts = data; renderBroadcasts(body.broadcasts); }
    }
  }

  // MARK: tickets

  function customerName(ticket) {
    var customer = ticket.customer && typeof ticket.customer === "object" ? ticket.customer : {};
    return str(customer.name) || str(customer.id) || "Customer";
  }

  function speaker(ticket, message) {
    if (message.from === "customer") return str(message.name) || customerName(ticket);
    if (message.from === "agent") return str(message.name) || "Agent " + (str(message.agent) || "?");
    return str(message.name) || str(ticket.bot) || "Bot";
  }

  function holderText(ticket) {
    return ticket.agent ? "held by " + str(ticket.agent) : "unassigned";
  }

  function renderTickets(list) {
    tickets = list;
    var focusedKey = null;
    var active = document.activeElement;
    if (active && ticketList.contains(active)) {
      var holder = active.closest("[data-ticket]");
      focusedKey = holder ? holder.getAttribute("data-ticket") : null;
    }
    clear(ticketList);
    ticketsEmpty.hidden = list.length > 0;
    list.forEach(function (ticket) {
      var key = keyOf(ticket);
      var item = el("li", "ticket-item" + (key === selected ? " selected" : ""));
      item.setAttribute("data-ticket", key);
      var button = el("button", "select", str(ticket.queue) + " #" + str(ticket.number));
      button.type = "button";
      button.setAttribute("aria-pressed", key === selected ? "true" : "false");
      button.setAttribute("aria-label", "Ticket " + str(ticket.queue) + " #" + str(ticket.number) + " from " + customerName(ticket));
      button.addEventListener("click", function () { select(ticket); });
      item.appendChild(button);
      var meta = el("p", "ticket-meta");
      meta.appendChild(el("span", "status-badge", str(ticket.status)));
      meta.appendChild(document.createTextNode(" · " + holderText(ticket) + " · "));
      var ageSpan = el("span", "age", age(ticket.opened));
      ageSpan.setAttribute("data-opened", str(ticket.opened));
      meta.appendChild(ageSpan);
      item.appendChild(meta);
      var customer = ticket.customer && typeof ticket.customer === "object" ? ticket.customer : {};
      var extra = ["email", "phone", "org"].map(function (k) { return str(customer[k]); }).filter(Boolean).join(" · ");
      item.appendChild(el("p", "ticket-customer", customerName(ticket) + (extra ? " — " + extra : "")));
      if (ticket.note) item.appendChild(el("p", "ticket-note", str(ticket.note)));
      var messages = Array.isArray(ticket.messages) ? ticket.messages.slice(-3) : [];
      if (messages.length) {
        var lines = el("ul", "last-lines");
        lines.setAttribute("aria-label", "Last messages");
        messages.forEach(function (message) {
          lines.appendChild(el("li", null, speaker(ticket, message) + ": " + str(message.text)));
        });
        item.appendChild(lines);
      }
      ticketList.appendChild(item);
      if (key === focusedKey) button.focus();
      if (key === selected) showTicket(ticket);
    });
  }

  function select(ticket) {
    selected = keyOf(ticket);
    ticketList.querySelectorAll("[data-ticket]").forEach(function (item) {
      var on = item.getAttribute("data-ticket") === selected;
      item.classList.toggle("selected", on);
      var button = item.querySelector("button.select");
      if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
    });
    ticketError.textContent = "";
    showTicket(ticket);
    request("GET", ticketPath(ticket)).then(function (answer) {
      if (answer.status === 401) { signedOut("Your session ended: sign in again."); return; }
      if (!answer.ok) { ticketError.textContent = errorOf(answer, "Could not load the ticket"); return; }
      var fresh = answer.body && answer.body.ticket ? answer.body.ticket : answer.body;
      if (fresh && keyOf(fresh) === selected) showTicket(fresh);
    });
  }

  function detail(label, value) {
    if (value === "" || value === null || value === undefined) return;
    details.appendChild(el("dt", null, label));
    details.appendChild(el("dd", null, value));
  }

  function showTicket(ticket) {
    current = ticket;
    ticketNone.hidden = true;
    ticketView.hidden = false;
    ticketTitle.textContent = "Conversation — " + str(ticket.queue) + " #" + str(ticket.number);
    clear(details);
    detail("Status", str(ticket.status));
    detail("Holder", ticket.agent ? str(ticket.agent) : "nobody yet");
    var opened = age(ticket.opened);
    detail("Opened", opened && opened !== "just now" ? opened + " ago" : opened);
    if (ticket.resolved) detail("Resolved", new Date(str(ticket.resolved)).toLocaleString());
    detail("Bot", str(ticket.bot));
    var customer = ticket.customer && typeof ticket.customer === "object" ? ticket.customer : {};
    detail("Customer", customerName(ticket));
    var labels = { id: "Customer id", phone: "Phone", email: "Email", org: "Organisation", title: "Title", avatar: "Avatar" };
    Object.keys(customer).forEach(function (k) {
      if (k === "name") return;
      var value = customer[k];
      if (typeof value === "string" || typeof value === "number") detail(labels[k] || k, str(value));
    });
    detail("Note", str(ticket.note));
    var atBottom = conversation.scrollHeight - conversation.scrollTop - conversation.clientHeight < 40;
    clear(conversation);
    (Array.isArray(ticket.messages) ? ticket.messages : []).forEach(function (message) {
      var from = message.from === "customer" || message.from === "agent" ? message.from : "bot";
      var line = el("li", "line " + from);
      line.appendChild(el("span", "who-said", speaker(ticket, message)));
      line.appendChild(el("span", "said", str(message.text)));
      conversation.appendChild(line);
    });
    if (atBottom) conversation.scrollTop = conversation.scrollHeight;
    var resolved = ticket.status === "resolved" || ticket.status === "closed";
    takeButton.disabled = busy || resolved || (agent !== null && ticket.agent === agent);
    resolveButton.disabled = busy || resolved;
    replyButton.disabled = busy || resolved;
    replyText.disabled = resolved;
  }

  function act(path, body, done) {
    if (!current || busy) return;
    var ticket = current;
    busy = true;
    ticketError.textContent = "";
    showTicket(ticket);
    request("POST", ticketPath(ticket) + path, body).then(function (answer) {
      busy = false;
      if (answer.status === 401) { signedOut("Your session ended: sign in again."); return; }
      if (answer.ok) {
        var fresh = answer.body && answer.body.ticket ? answer.body.ticket : answer.body;
        if (done) done();
        if (fresh && typeof fresh === "object" && fresh.queue !== undefined && keyOf(fresh) === selected) showTicket(fresh);
        else if (current) showTicket(current);
        return;
      }
      if (answer.status === 409) ticketError.textContent = "Taken by another agent, or resolved.";
      else if (answer.status === 403) ticketError.textContent = "This ticket is not in your queues.";
      else ticketError.textContent = errorOf(answer, "Failed");
      if (current) showTicket(current);
    }, function () {
      busy = false;
      ticketError.textContent = "Could not reach the server.";
      if (current) showTicket(current);
    });
  }

  takeButton.addEventListener("click", function () { act("/take"); });
  resolveButton.addEventListener("click", function () { act("/resolve"); });
  replyForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = replyText.value;
    if (!text.trim()) { replyText.focus(); return; }
    act("/reply", { text: text }, function () { replyText.value = ""; replyText.focus(); });
  });
  replyText.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      replyForm.requestSubmit();
    }
  });

  // MARK: broadcasts

  function renderBroadcasts(list) {
    clear(broadcastList);
    broadcastsEmpty.hidden = list.length > 0;
    list.forEach(function (job, index) {
      var item = el("li", "broadcast-item");
      var total = Math.max(0, Number(job.total) || 0);
      var sent = Math.max(0, Number(job.sent) || 0);
      var failed = Math.max(0, Number(job.failed) || 0);
      var progressId = "broadcast-progress-" + index;
      var label = el("label", null, str(job.bot) + " — " + str(job.id) + ": " + (str(job.state) || str(job.status)) + ", " +
                     sent + " of " + total + " sent" + (failed ? ", " + failed + " failed" : ""));
      label.htmlFor = progressId;
      var bar = el("progress");
      bar.id = progressId;
      bar.max = total || 1;
      bar.value = Math.min(sent + failed, total || 1);
      bar.textContent = total ? Math.round(100 * (sent + failed) / total) + "%" : "";
      item.appendChild(label);
      item.appendChild(bar);
      broadcastList.appendChild(item);
    });
  }

  // The ages in the list and the open ticket move on by themselves.
  window.setInterval(function () {
    ticketList.querySelectorAll(".age[data-opened]").forEach(function (span) {
      span.textContent = age(span.getAttribute("data-opened"));
    });
  }, 30000);

  tokenInput.focus();
})();

"""#
}
