// Predict mode: the student clicks the training point they expect the criterion to pick
// next; the star and the criterion stay hidden until they do, then the pick, their point's
// score and rank show.  `predict` holds the player's methods (mixed into Player, player.js).

// A score as the story says it: three significant digits, or ∞ (the Fisher criterion of a
// point that separates the classes with no scatter within them; nan marks a point not eligible).
const scoreText = (value) => (value === Infinity ? "∞" : value === -Infinity ? "−∞" : value.toPrecision(3));

export const predict = {
  setPredict(on) {
    if (!this.predictBox || this.predict === on) return;
    this.predictBox.checked = on;
    this.predict = on;
    this.guess = null;
    this.guessNote = "";
    if (this.cells) { this.render(true); this.tellPredict(); }  // (not while the player is being built)
  },

  // Predict mode on or off, told to a live class (live.js): the lecturer's turns the class's on.
  tellPredict() {
    document.dispatchEvent(new CustomEvent("mpl-predict", { detail: { player: this, on: this.predict } }));
  },

  // In a live class (live.js sets `classAsk`: the round, and whether the lecturer revealed
  // it) the pick shows when the lecturer reveals it, not at the student's own click.
  revealed() {
    if (this.j >= this.n) return true;
    return this.classAsk ? this.classAsk.revealed : this.guess !== null;
  },

  // The rank of training point `point` by the criterion's score at this step (1: the pick's;
  // points scoring ∞ together share it).
  rankOf(point) {
    const row = this.scores ? this.scores[this.j] : null;
    if (!row || Number.isNaN(row[point])) return Infinity;
    const order = this.payload.pick_max === false ? 1 : -1;
    let rank = 1;
    for (let i = 0; i < row.length; i++) if (!Number.isNaN(row[i]) && order * (row[i] - row[point]) < 0) rank += 1;
    return rank;
  },

  // Predict mode: a click anywhere on the data panel takes the training point nearest to
  // it on screen (test points and points under others can never swallow it); when several
  // training points lie under the click (within 4 px of the nearest), the winner among
  // them counts -- on screen they are the same point.
  hook(cell) {
    const panel = cell.panel;
    if (panel.guess_trace === undefined) return;
    cell.onClick = (event) => {
      if (this.destroyed || !this.predict || this.revealed() || !this.coords) return;
      if (this.classAsk && this.classAsk.question) return;  // the class answers the scene's question, not the board
      if (this.classAsk && this.classAsk.closed) return;  // the lecturer closed the vote, or its time ran out
      const full = cell.plot._fullLayout;
      if (!full || !full.xaxis) return;
      const frame = cell.plot.getBoundingClientRect();
      const x = event.clientX - frame.left, y = event.clientY - frame.top;
      const xa = full.xaxis, ya = full.yaxis, size = full._size;
      if (x < size.l || x > size.l + size.w || y < size.t || y > size.t + size.h) return;
      const winner = this.payload.picks[this.j];
      const distances = this.coords.map((point) => Math.hypot(xa._offset + xa.c2p(point[0]) - x, ya._offset + ya.c2p(point[1]) - y));
      const chosen = new Set(this.payload.picks.slice(0, this.j));
      let nearest = -1;
      distances.forEach((d, i) => { if (!chosen.has(i) && (nearest < 0 || d < distances[nearest])) nearest = i; });
      if (nearest < 0) return;
      const under = distances[winner] <= distances[nearest] + 4 * this.scale;
      this.guess = under ? winner : nearest;
      this.guessNote = under && winner !== nearest ? " (the point under your click)" : " (the training point nearest your click)";
      if (this.classAsk) {  // a live class's round: the answer goes to the class; scored when revealed
        document.dispatchEvent(new CustomEvent("mpl-guess", { detail: { player: this, point: this.guess } }));
      } else {
        this.guesses.total += 1;
        if (this.guess === winner) this.guesses.right += 1;
      }
      this.render(true);
    };
    cell.plot.addEventListener("click", cell.onClick, true);
  },

  renderQuiz() {
    if (!this.predict) { this.quiz.replaceChildren(); this.quiz.style.display = "none"; return; }
    this.quiz.style.display = "";
    if (this.classAsk && !this.classAsk.question && this.j < this.n) { this.quiz.textContent = this.classQuiz(); return; }
    const score = "Score: " + this.guesses.right + " of " + this.guesses.total + ". ";
    if (this.j >= this.n) { this.quiz.textContent = score + "No pick left: reset to play again."; return; }
    if (this.guess === null) {
      this.quiz.textContent = score + "Click the training point you expect the criterion to choose next (the star and the criterion are hidden until you do).";
      return;
    }
    this.quiz.textContent = score + (this.guess === this.payload.picks[this.j] ? "Right! " : "Not quite. ") + this.guessDetail() + " Press Next.";
  },

  // Your point's score and rank against the pick's.
  guessDetail() {
    const winner = this.payload.picks[this.j];
    const row = this.scores ? this.scores[this.j] : null;
    if (!row) return "";
    const mine = row[this.guess];
    return !Number.isNaN(mine)
      ? " You took point " + this.guess + this.guessNote + ": it scores " + scoreText(mine) + " (rank " + this.rankOf(this.guess) + "); the winner " + winner + " scores " + scoreText(row[winner]) + "."
      : " You took point " + this.guess + this.guessNote + ", which cannot be chosen (already chosen or exhausted).";
  },

  // The line under the story in a live class's round of "predict the next pick".
  classQuiz() {
    const winner = this.payload.picks[this.j];
    if (this.classLead) {
      return this.classAsk.revealed
        ? "The pick is point " + winner + " (the star)."
        : "The class is predicting the next pick: the bar counts the answers, and the data panel shows where they clicked once you reveal the pick or show the results.";
    }
    if (!this.classAsk.revealed && this.classAsk.closed) {
      return "The vote is closed" + (this.guess === null ? "." : ": your answer, point " + this.guess + ", counts.");
    }
    if (!this.classAsk.revealed) {
      return this.guess === null
        ? "The class predicts: click the training point you expect the criterion to choose next."
        : "Your answer: point " + this.guess + this.guessNote + ". Click another point to change it, until the lecturer reveals the pick.";
    }
    if (this.guess === null) return "The pick is point " + winner + "." + this.classShare(winner) + " Press Next, or wait for the lecturer.";
    return (this.guess === winner ? "Right! " : "Not quite. ") + this.guessDetail() + this.classShare(winner);
  },

  // The share of the class that predicted the pick, once revealed (the class's counts).
  classShare(winner) {
    const results = this.classAsk && this.classAsk.results;
    if (!results || results.kind !== "predict") return "";
    const counts = results.answers || {};
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (!total) return "";
    const right = counts[String(winner)] || 0;
    return " The class: " + right + " of " + total + " (" + Math.round((100 * right) / total) + "%) predicted it; the circles on the data panel count where everyone clicked.";
  },
};
