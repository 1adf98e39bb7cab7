package server

import (
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/internal/github"
)

// itemKey names a work item: deliveries with the same key are triggers of
// the same step function and merge into one run.
type itemKey struct {
	Installation int64
	Repo         github.Repo
	Issue        int
}

func (k itemKey) String() string { return fmt.Sprintf("%s#%d", k.Repo, k.Issue) }

// addResult is what became of a delivery offered to the work set.
type addResult int

const (
	// addQueued: a new item now waits.
	addQueued addResult = iota
	// addMerged: the item was already waiting; the delivery joined it.
	addMerged
	// addRerun: the item is running; it runs once more when it ends.
	addRerun
	// addFull: a new item found the set at its bound; nothing changed.
	addFull
)

func (r addResult) String() string {
	switch r {
	case addQueued:
		return "queued"
	case addMerged:
		return "merged"
	case addRerun:
		return "rerun"
	}
	return "queue_full"
}

// maxComments bounds the comment events one item keeps, so a burst of
// comments on one issue cannot grow an item without bound. Only new
// /cogworks commands by people reach a job (parseWork ignores the rest)
// and one is enough for the step to look for commands, so keeping the
// first few loses nothing.
const maxComments = 8

// workSet holds work items, not deliveries: each (installation,
// repository, issue) is waiting at most once, and a delivery for a
// waiting or running item merges into it instead of taking a slot. Only
// the waiting items count against the bound; the running ones are bounded
// by the workers. It is plain data: the Server's mutex guards it.
type workSet struct {
	limit   int
	order   []itemKey        // waiting keys, oldest first
	waiting map[itemKey]*Job // key → merged job, waiting
	running map[itemKey]*Job // key → merged job to run once more, or nil
}

func newWorkSet(limit int) *workSet {
	return &workSet{limit: limit, waiting: map[itemKey]*Job{}, running: map[itemKey]*Job{}}
}

// add offers a delivery's job to the set.
func (w *workSet) add(job Job) addResult {
	k := job.itemKey()
	if again, ok := w.running[k]; ok {
		if again == nil {
			j := job
			j.Comments = capComments(j.Comments)
			w.running[k] = &j
		} else {
			mergeJob(again, job)
		}
		return addRerun
	}
	if cur := w.waiting[k]; cur != nil {
		mergeJob(cur, job)
		return addMerged
	}
	if len(w.order) >= w.limit {
		return addFull
	}
	j := job
	j.Comments = capComments(j.Comments)
	w.waiting[k] = &j
	w.order = append(w.order, k)
	return addQueued
}

// take moves the oldest waiting item to running.
func (w *workSet) take() (Job, bool) {
	if len(w.order) == 0 {
		return Job{}, false
	}
	k := w.order[0]
	w.order[0] = itemKey{}
	w.order = w.order[1:]
	j := w.waiting[k]
	delete(w.waiting, k)
	w.running[k] = nil
	return *j, true
}

// done ends a run of job's item: when deliveries arrived meanwhile it
// returns their merged job, which the same worker runs next (so the item
// is never run twice at once); otherwise the item leaves the set.
func (w *workSet) done(k itemKey) (Job, bool) {
	again := w.running[k]
	if again == nil {
		delete(w.running, k)
		return Job{}, false
	}
	w.running[k] = nil
	return *again, true
}

// waitingItems names the waiting items, oldest first.
func (w *workSet) waitingItems() []string {
	out := make([]string, len(w.order))
	for i, k := range w.order {
		out[i] = k.String()
	}
	return out
}

// waitingLen and runningLen count the items in each state.
func (w *workSet) waitingLen() int { return len(w.order) }
func (w *workSet) runningLen() int { return len(w.running) }

// mergeJob folds a later event for the same item into a waiting job.
func mergeJob(into *Job, job Job) {
	into.CheckMerges = into.CheckMerges || job.CheckMerges
	into.Restack = into.Restack || job.Restack
	// Pushes queued while a wake-up waits fold into it: one pass per item.
	into.Push = into.Push || job.Push
	into.RevisionOnly = into.RevisionOnly && job.RevisionOnly
	for _, pr := range job.Revise {
		if !slices.Contains(into.Revise, pr) && len(into.Revise) < maxComments {
			into.Revise = append(into.Revise, pr)
		}
	}
	for _, c := range job.CI {
		if !slices.Contains(into.CI, c) && len(into.CI) < maxComments {
			into.CI = append(into.CI, c)
		}
	}
	into.Comments = capComments(append(into.Comments, job.Comments...))
}

func capComments(c []CommentEvent) []CommentEvent {
	if len(c) > maxComments {
		return c[:maxComments:maxComments]
	}
	return c
}
