// A guided lesson's scene (ui/guide.py) in the player: its head (scene n of m, the way to
// the next and previous scene, speaker notes and checked claims), narration, "try it
// yourself", and a question answered with a click; where a scene remembers the step a
// student left it on.  `guide` holds the player's methods (mixed into Player, player.js).

import { el } from "./dom.js";

// Where a lesson's scene remembers the step a student left it on (localStorage).
export function sceneKey(guide) {
  return "mpl-scene-step:" + guide.id + ":" + guide.scene;
}

export const guide = {
  // The lesson line: the preset the view is on, its name and what it shows (plain text);
  // or a guided lesson's scene (ui/guide.py): progress, narration, question, notes.
  setLesson(lesson) {
    const key = lesson ? JSON.stringify(lesson) : "";
    if (key === this.lessonKey) return;
    this.lessonKey = key;
    const wasGuided = Boolean(this.guide);
    const panelBefore = this.guide ? this.guide.panel : null;
    this.guide = lesson && lesson.guide ? lesson.guide : null;
    if ((this.guide ? this.guide.panel : null) !== panelBefore && this.Plotly && this.payload.present) {
      this.screen = 0;
      requestAnimationFrame(() => { if (!this.destroyed) this.layout(); });  // the named panel first
    }
    this.lesson.classList.toggle("mpl-guided", Boolean(this.guide));
    if (wasGuided && !this.guide) this.setPredict(false);  // a next-pick scene's predict mode ends with the lesson
    if (this.guide) {
      this.lesson.replaceChildren(...this.guideParts(lesson));
      this.lesson.style.display = "";
      this.setPredict(Boolean(this.guide.question && this.guide.question.kind === "next-pick"));
    } else if (lesson && lesson.name) {
      this.lesson.replaceChildren(el("strong", { text: lesson.name + ". " }), document.createTextNode(lesson.text || ""));
      this.lesson.style.display = "";
    } else {
      this.lesson.replaceChildren();
      this.lesson.style.display = "none";
    }
  },

  // A scene of a guided lesson: "Lesson · Scene 3 of 9" with a progress bar and the way to
  // the next and previous scene, the scene's title and narration, a "try it yourself"
  // prompt, a question answered by a click (the answer and the running score shown then),
  // and the speaker notes with the scene's checked claims, folded.  All plain text.
  guideParts(lesson) {
    const g = this.guide;
    const afterClick = (event) => this.afterClick(event);
    const sceneButton = (label, name, direction, disabled) => el("button", {
      class: "mpl-btn mpl-scene-btn", type: "button", text: label, "aria-label": name, title: name + " (PageDown / PageUp past the scene's steps)",
      disabled: disabled ? "disabled" : null,
      onclick: (event) => { if (this.options.onPastEnd) this.options.onPastEnd(direction); afterClick(event); } });
    const bar = el("div", { class: "mpl-progress", role: "progressbar", "aria-label": "Scene " + g.scene + " of " + g.scenes,
      "aria-valuemin": "1", "aria-valuemax": String(g.scenes), "aria-valuenow": String(g.scene) },
      [el("div", { class: "mpl-progress-fill", style: "width:" + (100 * g.scene / g.scenes).toFixed(1) + "%" })]);
    // Speaker notes and the scene's checked claims: folded behind a button on the head's
    // line, so that on a projector they take no room until the lecturer opens them.
    let notes = null;
    let notesButton = null;
    if (g.notes || (g.claims && g.claims.length) || (g.unseen && g.unseen.length)) {
      notes = el("div", { class: "mpl-guide-notes", hidden: "hidden" });
      if (g.notes) notes.append(el("div", { text: g.notes }));
      for (const [claim, holds] of g.claims || []) notes.append(el("div", { class: "mpl-claim", text: (holds ? "✓ " : "✗ ") + claim + (holds ? "" : " — does not hold on these settings") }));
      // what the scene says but does not draw by its last step (a "try it" scene's new settings can do that)
      for (const said of g.unseen || []) notes.append(el("div", { class: "mpl-claim", text: "✗ not on screen: " + said }));
      notesButton = el("button", { class: "mpl-btn mpl-notes-btn", type: "button", text: "Notes", "aria-expanded": "false",
        "aria-label": "Speaker notes", title: "Speaker notes and the scene's checked claims",
        onclick: (event) => {
          notes.hidden = !notes.hidden;
          notesButton.setAttribute("aria-expanded", String(!notes.hidden));  // (the top's new height relays the panels out)
          afterClick(event);
        } });
    }
    // On a projector the question is folded behind a button on the same line until the
    // lecturer opens it (the class reads the scene first); a live class's vote opens it.
    let question = null;
    let questionButton = null;
    if (g.question && g.question.kind === "choice") {
      question = this.questionBox(g);
      const folded = this.payload.present && this.questionOpen !== g.scene && !(this.classAsk && this.classAsk.question);
      if (folded) question.hidden = true;
      if (this.payload.present) {
        questionButton = el("button", { class: "mpl-btn mpl-question-btn", type: "button", text: "Question",
          "aria-expanded": String(!question.hidden), "aria-label": "Question", title: "Show the scene's question",
          onclick: (event) => {
            question.hidden = !question.hidden;
            this.questionOpen = question.hidden ? null : g.scene;
            questionButton.setAttribute("aria-expanded", String(!question.hidden));
            afterClick(event);
          } });
        this.questionButton = questionButton;
      }
    }
    const where = el("div", { class: "mpl-guide-head" }, [
      sceneButton("◀ Scene", "Previous scene", -1, g.scene <= 1),
      el("span", { class: "mpl-guide-where", title: g.lesson + " · Scene " + g.scene + " of " + g.scenes },
        [el("span", { class: "mpl-guide-lesson", text: g.lesson }), el("span", { text: "\u00a0· Scene " + g.scene + " of " + g.scenes })]),
      bar,
      ...(questionButton ? [questionButton] : []),
      ...(notesButton ? [notesButton] : []),
      sceneButton(g.scene >= g.scenes ? "End" : "Scene ▶", "Next scene", 1, g.scene >= g.scenes),
    ]);
    const parts = [where];
    if (notes) parts.push(notes);
    const text = el("div", { class: "mpl-guide-text" }, [el("strong", { text: lesson.name + ". " }), document.createTextNode(lesson.text || "")]);
    if (g.try) text.append(" ", el("span", { class: "mpl-guide-try" }, [el("strong", { text: "Try it yourself: " }), document.createTextNode(g.try + " (the sidebar's controls are yours for this scene)")]));
    parts.push(text);
    if (question) parts.push(question);
    else if (g.question) parts.push(el("div", { class: "mpl-guide-question" }, [el("strong", { text: "Predict: " }), document.createTextNode(g.question.ask)]));
    return parts;
  },

  // A multiple-choice question: the first click answers it (kept for the lesson's score in
  // this tab's session storage), then the right choice and the explanation show.
  questionBox(g) {
    const q = g.question;
    const store = "mpl-lesson-score:" + g.id;
    let scores = {};
    try { scores = JSON.parse(sessionStorage.getItem(store) || "{}"); } catch (error) { scores = {}; }
    const box = el("div", { class: "mpl-guide-question", role: "group", "aria-label": "Question" });
    const draw = () => {
      if (this.classAsk && this.classAsk.question) {  // the class votes: the question shows
        if (box.hidden) { box.hidden = false; if (this.questionButton) this.questionButton.setAttribute("aria-expanded", "true"); }
        this.classQuestion(box, q);
        return;
      }
      const chosen = scores[g.scene];
      const right = Object.values(scores).filter((value) => value.right).length;
      const total = Object.keys(scores).length;
      const row = el("div", { class: "mpl-choices" }, [el("span", { class: "mpl-guide-ask" }, [el("strong", { text: "Question: " }), document.createTextNode(q.ask)])]);
      box.replaceChildren(row);
      q.choices.forEach((choice, index) => {
        const mark = chosen ? (index + 1 === q.answer ? "✓ " : (index + 1 === chosen.choice ? "✗ " : "")) : "";
        row.append(el("button", { class: "mpl-btn mpl-choice" + (chosen && index + 1 === q.answer ? " mpl-right" : ""), type: "button",
          text: mark + String.fromCharCode(65 + index) + ". " + choice, "aria-pressed": chosen && chosen.choice === index + 1 ? "true" : "false",
          onclick: (event) => {
            if (!scores[g.scene]) {
              scores[g.scene] = { choice: index + 1, right: index + 1 === q.answer };
              try { sessionStorage.setItem(store, JSON.stringify(scores)); } catch (error) { /* not kept */ }
              draw();
            }
            this.afterClick(event);
          } }));
      });
      if (chosen) {
        box.append(el("div", { class: "mpl-guide-answer", "aria-live": "polite",
          text: (chosen.right ? "Right. " : "Not quite: the answer is " + String.fromCharCode(64 + q.answer) + ". ") + (q.explain || "") +
            " Score so far: " + right + " of " + total + "." }));
      }
    };
    draw();
    this.redrawQuestion = draw;  // a live class's round opens, closes or is revealed (live.js)
    return box;
  },

  // The question as a live class answers it: a student's click is sent to the class (and may
  // change until the lecturer reveals the answer); the right choice and the explanation show
  // when the lecturer reveals it.
  classQuestion(box, q) {
    const ask = this.classAsk;
    const chosen = this.classChoice || null;
    const row = el("div", { class: "mpl-choices" }, [el("span", { class: "mpl-guide-ask" }, [el("strong", { text: "Question: " }), document.createTextNode(q.ask)])]);
    box.replaceChildren(row);
    q.choices.forEach((choice, index) => {
      const mark = ask.revealed ? (index + 1 === q.answer ? "✓ " : (index + 1 === chosen ? "✗ " : "")) : "";
      row.append(el("button", { class: "mpl-btn mpl-choice" + (ask.revealed && index + 1 === q.answer ? " mpl-right" : ""), type: "button",
        text: mark + String.fromCharCode(65 + index) + ". " + choice, "aria-pressed": chosen === index + 1 ? "true" : "false",
        onclick: (event) => {
          if (!ask.revealed && !ask.closed && !this.classLead) {
            this.classChoice = index + 1;
            document.dispatchEvent(new CustomEvent("mpl-choice", { detail: { player: this, choice: index + 1 } }));
            this.classQuestion(box, q);
          }
          this.afterClick(event);
        } }));
    });
    const letter = (n) => String.fromCharCode(64 + n);
    let text;
    if (ask.revealed) text = "The answer is " + letter(q.answer) + ". " + (q.explain || "") + (chosen && !this.classLead ? " You answered " + letter(chosen) + "." : "");
    else if (ask.closed) text = "The vote is closed" + (chosen && !this.classLead ? ": your answer, " + letter(chosen) + ", counts." : ".");
    else if (this.classLead) text = "The class is voting: the bar above counts the answers.";
    else if (chosen) text = "Your answer: " + letter(chosen) + ". You may change it until the lecturer reveals the answer.";
    else text = "The class votes: click your answer.";
    box.append(el("div", { class: "mpl-guide-answer", "aria-live": "polite", text }));
  },
};
