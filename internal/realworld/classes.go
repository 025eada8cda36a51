package realworld

// Verdict classifies a report heddle made on the corpus.
type Verdict string

// Verdicts. Genuine reports are bugs in the code or in the test; the
// others are not bugs of the program.
const (
	Unclassified Verdict = ""
	CodeBug      Verdict = "bug in the code"
	TestBug      Verdict = "bug in the test"
	Timing       Verdict = "timing-dependent test"
	HeddleFault  Verdict = "heddle fault"
)

// Genuine reports whether the verdict is a real bug (in the code or in
// the test).
func (v Verdict) Genuine() bool { return v == CodeBug || v == TestBug }

// Class is the judgement on one report, made by reading it.
type Class struct {
	Verdict Verdict
	Why     string
}

// classes are the judgements on the reports heddle made on the corpus,
// keyed by package, test and kind ("pkg.TestX kind"). They are filled in by
// hand after reading each report (its text, the test and the code); a
// report not found here is listed as unclassified in the results.
var classes = map[string]Class{
	// github.com/alitto/pond/v2
	"github.com/alitto/pond/v2.TestResultTaskGroupWaitWithErrorInLastTask fail":                               {Timing, "sleeps 10 ms and assumes the first task has finished by then; fails when the sleep ends while the worker is still runnable"},
	"github.com/alitto/pond/v2.TestResultTaskGroupWaitWithMultipleErrors fail":                                {Timing, "the failing tasks sleep 10 ms and the test assumes the others have stored their results by then"},
	"github.com/avast/retry-go/v4.TestRandomDelay fail":                                                       {TestBug, "asserts that three attempts with RandomDelay take over 2 ms, but the two delays are each uniform in [0, 50 ms) (options.go:143, rand.Int63n of MaxJitter): their sum is under 2 ms with probability (2/50)²/2 = 0.08% a run, natively too; heddle draws rand's numbers per run and met such a draw at run 2,862 (1.91 ms), with no timer firing early"},
	"github.com/alitto/pond/v2.TestTaskGroupWaitShouldNotDeadlockWhenPoolContextCanceledWithQueuedTasks fail": {CodeBug, "group.Wait returns on the pool's cancellation before the worker has counted the first task as completed: CompletedTasks() is read before the worker updates it (no timer involved)"},
	"github.com/alitto/pond/v2.TestTaskGroupWithContextCanceled fail":                                         {Timing, "the task selects on ctx.Done and a 100 ms time.After; the test assumes cancel() reaches the task within 100 ms"},
	"github.com/alitto/pond/v2.TestTaskGroupMetrics fail":                                                     {Timing, "sleeps 10 ms after Wait and assumes the pool's metrics are updated by then"},
	"github.com/alitto/pond/v2.TestTaskGroupMetricsWithCancelledContext fail":                                 {Timing, "tasks sleep 20 ms and the test counts on which of them the cancellation reaches; needs the sleeps to end in order"},
	"github.com/alitto/pond/v2.TestTaskGroupContext fail":                                                     {Timing, "counts tasks cancelled by a 100 ms timeout; a timer firing while tasks are still runnable changes the counts"},
	"github.com/alitto/pond/v2.TestPoolWithContextCanceled fail":                                              {Timing, "asserts RunningWorkers() == 10 right after submitting 10000 tasks that sleep 1 ms: a worker whose sleep ends during the submit loop exits and lowers the count (the report's own replay diverged: 10000 goroutines)"},
	"github.com/alitto/pond/v2.TestPoolWithQueueSizeZero fail":                                                {CodeBug, "a task's future is resolved inside the task wrapper, before the worker calls updateMetrics: right after secondTask.Wait() returns, CompletedTasks() can still be 1 (no timer involved)"},
	"github.com/alitto/pond/v2.TestResultPoolSubmitContextCanceled fail":                                      {TestBug, "the test submits task3 while the worker runs task2, which cancels the pool's context: if the cancel lands between submit's Stopped() check and trySubmit's, task3 is counted as dropped, not canceled (the report shows DroppedTasks 1)"},

	// github.com/panjf2000/ants/v2
	"github.com/panjf2000/ants/v2.TestNonblockingSubmit fail":                {TestBug, "f closes ch1 before its worker has put itself back in the pool (revertWorker runs after f returns); the test's next nonblocking Submit can find no idle worker and get ErrPoolOverload"},
	"github.com/panjf2000/ants/v2.TestNonblockingSubmitWithFunc fail":        {TestBug, "the pool function calls wg.Done before its worker has put itself back in the pool; the test's Invoke right after wg.Wait can find no idle worker and get ErrPoolOverload"},
	"github.com/panjf2000/ants/v2.TestNonblockingSubmitWithFuncGeneric fail": {TestBug, "the pool function calls wg.Done before its worker has put itself back in the pool; the test's Invoke right after wg.Wait can find no idle worker and get ErrPoolOverload"},
	"github.com/panjf2000/ants/v2.TestInfinitePool leak":                     {TestBug, "the test never calls p.Release(): the pool's purge and ticktock goroutines tick forever"},
	"github.com/panjf2000/ants/v2.TestPoolTuneScaleUp steplimit":             {CodeBug, "Tune stores the new capacity and Broadcasts without the pool's lock: a Submit that read the old capacity under the lock enters cond.Wait after the Broadcast and is never woken, so wg.Wait hangs while the purge and ticktock tickers keep the run alive (no timer involved)"},

	// github.com/benbjohnson/clock
	"github.com/benbjohnson/clock.TestClock_Ticker_Stp fail":                  {Timing, "times the real clock's tickers and timers to a few milliseconds (20 ms ticks, 30 ms windows): fails on a machine slower than that"},
	"github.com/benbjohnson/clock.TestClock_Ticker_Rst fail":                  {Timing, "times the real clock's tickers and timers to a few milliseconds (20 ms ticks, 30 ms windows): fails on a machine slower than that"},
	"github.com/benbjohnson/clock.TestClock_Ticker_Stop_Rst fail":             {Timing, "times the real clock's tickers and timers to a few milliseconds (20 ms ticks, 30 ms windows): fails on a machine slower than that"},
	"github.com/benbjohnson/clock.TestClock_Timer_Stop fail":                  {Timing, "assumes a 20 ms timer has not fired before the next statement stops it"},
	"github.com/benbjohnson/clock.TestClock_Timer_Reset fail":                 {Timing, "assumes a 10 ms timer has not fired before the next statement resets it"},
	"github.com/benbjohnson/clock.TestClock_Timer_Reset_Unlock deadlock":      {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then: the goroutine must Reset the timer before Add returns, or nothing fires it again"},
	"github.com/benbjohnson/clock.TestMock_After fail":                        {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then"},
	"github.com/benbjohnson/clock.TestMock_AfterFunc fail":                    {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then"},
	"github.com/benbjohnson/clock.TestMock_Sleep fail":                        {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then"},
	"github.com/benbjohnson/clock.TestMock_Tick leak":                         {TestBug, "the test's goroutine loops on a mock ticker's channel forever; nothing stops it when the test returns"},
	"github.com/benbjohnson/clock.TestMock_Ticker leak":                       {TestBug, "the test's goroutine loops on a mock ticker's channel forever; nothing stops it when the test returns"},
	"github.com/benbjohnson/clock.TestMock_Ticker_Stop leak":                  {TestBug, "the test's goroutine waits on a ticker the test stops; it is never woken"},
	"github.com/benbjohnson/clock.TestMock_Ticker_Reset leak":                 {TestBug, "the test's goroutine loops on a mock ticker's channel forever; nothing stops it when the test returns"},
	"github.com/benbjohnson/clock.TestMock_Ticker_Stop_Reset leak":            {TestBug, "the test's goroutine loops on a mock ticker's channel forever; nothing stops it when the test returns"},
	"github.com/benbjohnson/clock.TestMock_Ticker_Multi leak":                 {TestBug, "the test's goroutine loops on a mock ticker's channel forever; nothing stops it when the test returns"},
	"github.com/benbjohnson/clock.TestMock_ReentrantDeadlock leak":            {TestBug, "the test's goroutine waits on a timer the test stops (it panics if the timer ticks): it is never woken"},
	"github.com/benbjohnson/clock.TestMock_AddAfterFuncRace fail":             {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then: AfterFunc must be registered before the two Add calls end"},
	"github.com/benbjohnson/clock.TestMock_AfterRace deadlock":                {CodeBug, "runNextTimer unlocks the mock before calling Tick, so two goroutines (Add, and After's runNextTimer) can tick the same timer; the second Tick blocks sending on the full one-slot channel while holding the mock's lock, and every other goroutine blocks on that lock"},
	"github.com/benbjohnson/clock.TestMock_WithDeadline fail":                 {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then"},
	"github.com/benbjohnson/clock.TestMock_WithDeadlineLaterThanCurrent fail": {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then"},
	"github.com/benbjohnson/clock.TestMock_WithTimeout fail":                  {Timing, "the mock clock's Add yields with a 1 ms time.Sleep (gosched) and assumes the goroutines waiting on its timers have run by then"},

	// go.uber.org/atomic
	"go.uber.org/atomic.TestNocmpIntegration blocked": {HeddleFault, "runs go build in a subprocess, which took longer than heddle's 10 s bound on a run without progress on the loaded machine: I/O, not a bug"},

	// go.uber.org/ratelimit
	"go.uber.org/ratelimit.TestRateLimiter fail":            {Timing, "the mock clock's Add sleeps 1 ms (benbjohnson/clock's clock.go:373) to let the takers run before the count is asserted; the sleeps ended while takers could still run, as on a loaded machine (heddle test -run 'TestRateLimiter$' -budget 1s at the same commit calls it TIMING-DEPENDENT when its timing check settles)"},
	"go.uber.org/ratelimit.TestRateLimiter deadlock":        {TestBug, "the test's goroutines signal that they started (goWait's wg.Done, startWg.Done) before they register with the mock clock (clock.After, or Take's Sleep): the test's clock.Add can run first, and a goroutine then waits for a time the mock never reaches again, so wg.Wait blocks forever; no timer needs to fire early (natively under load: TestSlack failed in a native run of the corpus)"},
	"go.uber.org/ratelimit.TestDelayedRateLimiter deadlock": {TestBug, "the test's goroutines signal that they started (goWait's wg.Done, startWg.Done) before they register with the mock clock (clock.After, or Take's Sleep): the test's clock.Add can run first, and a goroutine then waits for a time the mock never reaches again, so wg.Wait blocks forever; no timer needs to fire early (natively under load: TestSlack failed in a native run of the corpus)"},
	"go.uber.org/ratelimit.TestPer deadlock":                {TestBug, "the test's goroutines signal that they started (goWait's wg.Done, startWg.Done) before they register with the mock clock (clock.After, or Take's Sleep): the test's clock.Add can run first, and a goroutine then waits for a time the mock never reaches again, so wg.Wait blocks forever; no timer needs to fire early (natively under load: TestSlack failed in a native run of the corpus)"},
	"go.uber.org/ratelimit.TestPer leak":                    {TestBug, "the race of TestPer's deadlock report: the test's goroutines signal that they started before they register with the mock clock (Take's Sleep), the test's clock.Add runs first, and the takers then wait in the mock's Sleep (clock.go:194) for a time the mock never reaches again, or on the limiter's lock one of them holds: blocked forever once the test returned"},
	"go.uber.org/ratelimit.TestInitial deadlock":            {TestBug, "the test's goroutines signal that they started (goWait's wg.Done, startWg.Done) before they register with the mock clock (clock.After, or Take's Sleep): the test's clock.Add can run first, and a goroutine then waits for a time the mock never reaches again, so wg.Wait blocks forever; no timer needs to fire early (natively under load: TestSlack failed in a native run of the corpus)"},
	"go.uber.org/ratelimit.TestMaxSlack deadlock":           {TestBug, "the test's goroutines signal that they started (goWait's wg.Done, startWg.Done) before they register with the mock clock (clock.After, or Take's Sleep): the test's clock.Add can run first, and a goroutine then waits for a time the mock never reaches again, so wg.Wait blocks forever; no timer needs to fire early (natively under load: TestSlack failed in a native run of the corpus)"},
	"go.uber.org/ratelimit.TestSlack deadlock":              {TestBug, "the test's goroutines signal that they started (goWait's wg.Done, startWg.Done) before they register with the mock clock (clock.After, or Take's Sleep): the test's clock.Add can run first, and a goroutine then waits for a time the mock never reaches again, so wg.Wait blocks forever; no timer needs to fire early (natively under load: TestSlack failed in a native run of the corpus)"},

	// github.com/cenkalti/backoff/v4
	"github.com/cenkalti/backoff/v4.TestTicker leak":             {TestBug, "the test never calls ticker.Stop(): the ticker's goroutine stays blocked sending the next tick"},
	"github.com/cenkalti/backoff/v4.TestTickerDefaultTimer leak": {TestBug, "the test never calls ticker.Stop(): the ticker's goroutine stays blocked sending the next tick"},

	// github.com/eapache/go-resiliency
	"github.com/eapache/go-resiliency/batcher.TestShutdownSuccess fail":                      {Timing, "asserts that Shutdown returns within 10 ms of wall time"},
	"github.com/eapache/go-resiliency/batcher.TestBatcherMultipleBatches fail":               {Timing, "counts batches formed by a 10 ms timeout while 5 ms sleeps submit work; the count depends on timer order"},
	"github.com/eapache/go-resiliency/breaker.TestBreakerErrorExpiry fail":                   {Timing, "sleeps 10 ms per call and assumes the breaker's error window expired in between"},
	"github.com/eapache/go-resiliency/breaker.TestBreakerStateTransitions fail":              {Timing, "sleeps for the breaker's timeout and assumes the breaker has moved to half-open by then"},
	"github.com/eapache/go-resiliency/breaker.TestBreakerAsyncStateTransitions fail":         {Timing, "sleeps for the breaker's timeout and assumes the asynchronous calls have finished by then"},
	"github.com/eapache/go-resiliency/deadline.TestDeadline fail":                            {Timing, "a 5 ms function must finish within a 10 ms deadline: fails on a machine slower than 5 ms"},
	"github.com/eapache/go-resiliency/retrier.TestRetrierRunFnWithSurfaceWorkErrors fail":    {Timing, "assumes the 10 ms backoff timer has not fired when the retrier sees the cancelled context"},
	"github.com/eapache/go-resiliency/retrier.TestRetrierRunFnWithoutSurfaceWorkErrors fail": {Timing, "assumes the 10 ms backoff timer has not fired when the retrier sees the cancelled context"},

	// github.com/hashicorp/golang-lru/v2
	"github.com/hashicorp/golang-lru/v2/expirable.TestLRUWithPurge fail":               {Timing, "sleeps 100 ms of a 150 ms TTL and assumes the entry has not expired: fails when the test goroutine is starved for 50 ms"},
	"github.com/hashicorp/golang-lru/v2/expirable.TestLRUWithPurgeEnforcedBySize leak": {CodeBug, "every expirable LRU starts a janitor goroutine that never exits (the code says so: its done channel is never closed)"},
	"github.com/hashicorp/golang-lru/v2/expirable.TestLRUWithPurge leak":               {CodeBug, "every expirable LRU starts a janitor goroutine that never exits (the code says so: its done channel is never closed)"},

	// github.com/jonboulle/clockwork
	"github.com/jonboulle/clockwork.TestFakeClockRace leak":            {TestBug, "a goroutine calls fc.Sleep(1s) after the goroutine advancing the fake clock has run; nothing advances it again and it sleeps forever"},
	"github.com/jonboulle/clockwork.TestFakeTicker_DeliveryOrder fail": {TestBug, "the advancing goroutine can finish its ten Advance calls while the test drains the ticker; the test then waits for a tick nobody sends until its context times out"},

	// github.com/patrickmn/go-cache
	"github.com/patrickmn/go-cache.TestCacheTimes fail": {Timing, "asserts that d (70 ms TTL) is still there after waiting 25 + 30 ms: fails when the test goroutine is starved for 15 ms or more while the janitor's 1 ms ticker moves the clock (the report starves it for 100 ms, within -max-starve)"},

	// github.com/sourcegraph/conc
	"github.com/sourcegraph/conc/pool.TestContextPool leak":       {TestBug, "the \"before wait\" subtest starts a task and never calls Wait: the pool's worker stays blocked on its task channel"},
	"github.com/sourcegraph/conc/pool.TestErrorPool leak":         {TestBug, "the \"before wait\" subtest starts a task and never calls Wait: the pool's worker stays blocked on its task channel"},
	"github.com/sourcegraph/conc/pool.TestPool leak":              {TestBug, "the \"before wait\" subtest starts a task and never calls Wait: the pool's worker stays blocked on its task channel"},
	"github.com/sourcegraph/conc/pool.TestResultContextPool leak": {TestBug, "the \"before wait\" subtest starts a task and never calls Wait: the pool's worker stays blocked on its task channel"},
	"github.com/sourcegraph/conc/pool.TestResultErrorGroup leak":  {TestBug, "the \"before wait\" subtest starts a task and never calls Wait: the pool's worker stays blocked on its task channel"},
	"github.com/sourcegraph/conc/pool.TestResultGroup leak":       {TestBug, "the \"before wait\" subtest starts tasks and never calls Wait: the pool's workers stay blocked on their task channel"},

	// golang.org/x/sync
	"golang.org/x/sync/semaphore.TestWeighted+TestWeightedPanic+7-more panic": {Timing, "the parallel tests explored together: TestWeightedAcquire's 10 ms context expired while its goroutine could run, an Acquire failed and the test released more than it held; explored alone, or in a group of two, heddle's timing check calls it timing-dependent, but in the group of nine its replays without early firings are cut by a sibling's loop, so it stays a bug (the timing check does not settle it)"},
	"golang.org/x/sync/semaphore.TestWeightedAcquire fail":                    {Timing, "tryAcquire gives Acquire a 10 ms context; the test assumes it has not expired by the time Acquire checks it"},

	// github.com/allegro/bigcache/v3
	"github.com/allegro/bigcache/v3.TestAppendAndGetOnCache leak":                                 {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3.TestAppendRandomly leak":                                      {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3.TestBigCache_GetWithInfo leak":                                {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3.TestCacheDel leak":                                            {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3.TestCache_RepeatedSetWithBiggerEntry leak":                    {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3.TestCleanShouldEvictAll leak":                                 {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3.TestWriteAndGetOnCache leak":                                  {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3.TestWriteAndReadParallelSameKeyWithStats leak":                {TestBug, "the test never calls cache.Close(): the cleaning goroutine newBigCache starts (CleanWindow > 0; DefaultConfig's is 1 s) ticks forever"},
	"github.com/allegro/bigcache/v3/server.TestGetWithNoKey+TestGetWithMissingKey+10-more fail":   {CodeBug, "the parallel tests explored together: TestPutKey PUTs putKey and reads it back while TestInvalidPutWhenExceedShardCap PUTs an 8 MB value under the same key; a Set that fails for size first deletes the key's previous entry (shard.go:125-149), so TestPutKey's Get finds nothing: a failed Set loses the old value, and the tests share a key (go test runs them concurrently)"},
	"github.com/allegro/bigcache/v3.TestCacheInitialCapacity steplimit":                           {HeddleFault, "one goroutine Sets 1,048,576 keys, each under its shard's lock: past the 1,000,000-step bound; a long sequential loop, not a livelock (the bound does not tell them apart)"},
	"github.com/gammazero/workerpool/pacer.TestPacedWorkers+TestPauseBeforeFirstTask+2-more fail": {HeddleFault, "the package's parallel tests explored together: TestPauseWithWaitingCallers runs in a synctest bubble and expects Pause to take exactly 25ms of bubble time, which natively holds (a bubble's clock is its own); under heddle the bubble's clock is the run's virtual clock, which the polls of the other tests' goroutines, outside the bubble, moved by 2 µs (25.002ms) (fixed: a bubble has a clock and timers of its own, engine/bubble.go; script synctest_clock.txt)"},
	"github.com/gammazero/workerpool/pacer.TestPauseWithWaitingCallers fail":                      {HeddleFault, "a synctest test of the pacer: Pause waits on a full buffered channel while a caller receives from it; in Go the receive hands the freed slot to the oldest waiting sender in the same operation (Pause, waiting since 25ms), so Pause takes exactly 25ms on every native run; heddle lets a later sender race for the slot and reaches 75ms, an outcome Go cannot produce (fixed: buffered channels queue their blocked goroutines and hand off as Go's runtime does, engine/chan.go)"},

	// github.com/reugn/go-quartz
	"github.com/reugn/go-quartz/quartz.TestScheduler fail":             {HeddleFault, "the test runs ls in child processes (shell jobs) and expects them done after a 1 s sleep; the sleep fired as soon as nothing else could run, before the child ended, which natively never happens (fixed: a timer now waits for a child process up to its delay); with I/O in the run heddle then says it cannot explore the test"},
	"github.com/reugn/go-quartz/quartz.TestScheduler_PauseResume fail": {Timing, "sleeps 55 ms and expects five runs of a 10 ms trigger: the sleep ended while the scheduler's goroutine could run; with -budget 30s heddle's timing check says so (a timing verdict), at -budget 1s its replays of the 168,000-step run are cut and the failure stays a bug"},

	// github.com/sasha-s/go-deadlock
	"github.com/sasha-s/go-deadlock.TestLockDuplicate leak":    {TestBug, "the test's goroutines lock locks they already hold (the recursion the detector reports) and stay blocked forever, as the test's own comment says"},
	"github.com/sasha-s/go-deadlock.TestTryLockDuplicate leak": {TestBug, "the test's goroutines lock locks they already hold (the recursion the detector reports) and stay blocked forever, as the test's own comment says"},
	"github.com/sasha-s/go-deadlock.TestOrderMapGC fail":       {HeddleFault, "measures HeapInuse after runtime.GC: heddle's shadow state keeps every object a run synchronised on (fifty 1 MB structs) reachable until the run ends, where natively they are collected; its replay diverges on the heap size (fixed: the object table holds weak references, engine/objects.go)"},

	// github.com/sethvargo/go-retry
	"github.com/sethvargo/go-retry.TestDo fail": {Timing, "the deadline_exceeded subtest asserts that Do returns within 15 ms of wall time; its context's 10 ms deadline was seen 40 ms late (after two 20 ms backoffs), as on a loaded machine with parallel subtests"},

	// github.com/golang/groupcache
	"github.com/golang/groupcache.TestTruncatingByteSliceTarget panic": {TestBug, "uses the package-level stringGroup without once.Do(testSetup), which only other tests call: alone (heddle runs each test in a process of its own) it dereferences a nil Getter; natively `go test -run 'TestTruncatingByteSliceTarget$'` panics the same way"},

	"github.com/Workiva/go-datastructures/numerics/optimization.TestNelderMeadConstrained fail": {TestBug, "NelderMead draws its starting points from a source seeded with the clock (nelder_mead.go:41), and with some draws it ends at neither local minimum within the test's 0.01: natively `go test -count=500 -run 'TestNelderMeadConstrained$'` failed 3 times; heddle draws the source's numbers per run (before, the virtual clock seeded it the same every run)"},

	// github.com/jellydator/ttlcache/v3
	"github.com/jellydator/ttlcache/v3.Test_Cache_OnInsertion fail": {TestBug, "assert.Never polls resCh with a 100 ms tick for 200 ms: when its last tick and its deadline come together, Never returns and leaves a condition goroutine that runs later and takes the resCh value the next assert.Eventually waits for (replay step 83 of OnInsertion); the replay without early firings fails too, and natively OnInsertion failed 1 run in 30 (go test -count=30)"},
	"github.com/jellydator/ttlcache/v3.Test_Cache_OnEviction fail":  {TestBug, "as Test_Cache_OnInsertion: assert.Never polls resCh with a 100 ms tick for 200 ms: when its last tick and its deadline come together, Never returns and leaves a condition goroutine that runs later and takes the resCh value the next assert.Eventually waits for (replay step 83 of OnInsertion); the replay without early firings fails too, and natively OnInsertion failed 1 run in 30 (go test -count=30)"},
	"github.com/jellydator/ttlcache/v3.Test_Cache_OnUpdate fail":    {TestBug, "as Test_Cache_OnInsertion: assert.Never polls resCh with a 100 ms tick for 200 ms: when its last tick and its deadline come together, Never returns and leaves a condition goroutine that runs later and takes the resCh value the next assert.Eventually waits for (replay step 83 of OnInsertion); the replay without early firings fails too, and natively OnInsertion failed 1 run in 30 (go test -count=30)"},
	"github.com/jellydator/ttlcache/v3.Test_Cache_set leak":         {Timing, "go c.Start(); time.Sleep(90 ms); c.Stop(): when the sleep ends before Start has run, Stop is a no-op (stopped is still true) and Start's loop then runs forever; a leak that needs only the test's own sleep to end early, a timing verdict since 82ec773"},
	"github.com/jellydator/ttlcache/v3.Test_Cache_Start leak":       {TestBug, "the second `go cache.Start()` is a no-op only while the first runs: when it starts after assert.Eventually and Stop, it starts a loop nothing stops: a race in the test. On the schedule heddle found, the second Start comes late because timers fired early and goroutines woke late (the report's note); the replay without them ends with no leak"},

	// github.com/eapache/channels: each buffering channel runs a goroutine
	// between its input and output until Close; these tests never close
	// the channel they make last (testChannelConcurrentAccessors, the Cap
	// tests), or send and receive on a DeadChannel's nil channels.
	"github.com/eapache/channels.TestBatchingChannel leak":    {TestBug, "the last channel the test makes (NewBatchingChannel(1), for testChannelConcurrentAccessors) is never closed: its batchingBuffer goroutine waits in its select forever"},
	"github.com/eapache/channels.TestBatchingChannelCap leak": {TestBug, "the test makes two batching channels to read their Cap and never closes them: both batchingBuffer goroutines wait forever"},
	"github.com/eapache/channels.TestBlackHole leak":          {TestBug, "the second black hole (for testChannelConcurrentAccessors) is never closed: its discard goroutine waits forever"},
	"github.com/eapache/channels.TestDeadChannel leak":        {TestBug, "testChannelConcurrentAccessors sends on and receives from a DeadChannel, whose In and Out are nil channels: both goroutines block forever"},
	"github.com/eapache/channels.TestInfiniteChannel leak":    {TestBug, "the last infinite channel (for testChannelConcurrentAccessors) is never closed: its infiniteBuffer goroutine waits forever"},
	"github.com/eapache/channels.TestOverflowingChannel leak": {TestBug, "the last overflowing channel (for testChannelConcurrentAccessors) is never closed: its overflowingBuffer goroutine waits forever"},
	"github.com/eapache/channels.TestResizableChannel leak":   {TestBug, "the resizable channel passed to testChannelConcurrentAccessors is never closed: its magicBuffer goroutine waits forever"},
	"github.com/eapache/channels.TestRingChannel leak":        {TestBug, "the last ring channel (for testChannelConcurrentAccessors) is never closed: its ringBuffer goroutine waits forever"},

	// github.com/robfig/cron/v3: the test helper wait(wg) starts a
	// goroutine that waits on the WaitGroup the job would Done; a test
	// that checks the job does not run leaves it waiting forever.
	"github.com/robfig/cron/v3.TestStopCausesJobsToNotRun leak": {TestBug, "the job must not run, so wg.Wait in the goroutine wait(wg) started never returns: it is left behind when the test returns after its 1 s time.After"},
	"github.com/robfig/cron/v3.TestRemoveBeforeRunning leak":    {TestBug, "the removed job never runs, so wg.Wait in the goroutine wait(wg) started never returns: it is left behind when the test returns after its 1 s time.After"},
	"github.com/robfig/cron/v3.TestRemoveWhileRunning leak":     {TestBug, "the removed job never runs, so wg.Wait in the goroutine wait(wg) started never returns: it is left behind when the test returns after its 1 s time.After"},

	// github.com/asaskevich/EventBus
	"github.com/asaskevich/EventBus.TestSubscribeAsync leak": {TestBug, "the test's goroutine ranges over the results channel, which nothing closes: it waits forever after the test returns (the test's own comment notes a race on numResults)"},

	// github.com/thejerf/suture/v4
	"github.com/thejerf/suture/v4.TestFailures panic":           {TestBug, "the test sends service2 the Fail command and only then appends the supervisor's next time to the NowFeeder: if the supervisor handles the failure first, getNow finds no value and panics (\"Ran out of values for NowFeeder\"); no timer involved, and it happened natively once in a 3000-run loop of the suite's failing tests"},
	"github.com/thejerf/suture/v4.TestRemovingHungService leak": {TestBug, "the test serves the supervisor with context.Background() and never stops it: its Serve loop waits in its select forever"},
	"github.com/thejerf/suture/v4.TestRemoveService leak":       {TestBug, "the test serves the supervisor with context.Background() and never stops it: its Serve loop waits in its select forever"},
	"github.com/thejerf/suture/v4.TestServiceReport leak":       {TestBug, "the service is told to Hang and never released: it waits on its release channel forever, and the supervisor's stop goroutine waits for it"},
	"github.com/thejerf/suture/v4.TestIssue11 leak":             {TestBug, "ServeBackground(context.Background()) with nothing that stops it: the supervisor, its sub-supervisor and the service wait forever"},
	"github.com/thejerf/suture/v4.TestRemoveAndWait leak":       {TestBug, "the second service is told to Hang and never released: it waits on its release channel forever, and the goroutine waiting for it to stop too"},

	// github.com/cskr/pubsub
	"github.com/cskr/pubsub.TestTryPub fail": {TestBug, "TryPub returns once the hub goroutine has taken the command, not processed it: the test's <-ch can empty the one-slot channel before the hub processes the second TryPub, which then finds room and delivers \"there\" (the test expects it dropped); no timer involved (0 of 20,000 native runs: the hub nearly always runs first)"},

	// github.com/sethvargo/go-limiter: internal/fasttime reads the clock
	// with `//go:linkname now time.now`, a declaration without a body the
	// rewriter leaves alone: the store's times are real while the test's
	// time.Now and time.Sleep are heddle's virtual ones.
	"github.com/sethvargo/go-limiter/memorystore.TestStore_Take fail":     {HeddleFault, "the test's time.Sleep(interval) is virtual, the store's refill reads the real clock through fasttime's go:linkname to time.now, which heddle does not rewrite: the bucket has not refilled"},
	"github.com/sethvargo/go-limiter/memorystore.TestStore_Exercise fail": {HeddleFault, "the reset times the store computes from the real clock (fasttime's go:linkname to time.now, not rewritten) are compared with the virtual time.Now: seconds apart"},
	"github.com/sethvargo/go-limiter/httplimit.TestNewMiddleware fail":    {HeddleFault, "the reset header comes from the store's real clock (fasttime's go:linkname to time.now, not rewritten), time.Until(reset) from the virtual one: \"expected 1999997000 to be less than 1000000000\""},
	"github.com/sethvargo/go-limiter/httplimit.TestNewMiddleware leak":    {TestBug, "memorystore.New starts a purge goroutine on a ticker that only the store's Close stops, and the test never closes its two stores: they run on after the test, on every schedule (natively too: goleak would show them). Its replay diverged (the requests are real I/O to an httptest server, detached or not depending on how long they took) until replays followed the recorded run's detaches (engine/detachplan.go)"},
	// github.com/fatih/semgroup
	"github.com/fatih/semgroup.TestGroup_deadlock fail": {TestBug, "the test cancels the group's context first and expects the second Go to fail to acquire the 1-slot semaphore, but the first Go's goroutine (f returns nil at once) can release it before: x/sync's Acquire then succeeds on a done context (its doc: \"If ctx is already done, Acquire may still succeed\"), Wait returns nil; natively 6 of 20,000 runs with -cpu 4 (go test -count=20000 -run 'TestGroup_deadlock$'), and 6 failures in go test -race -count=500 -cpu 1,2,4"},

	// github.com/lestrrat-go/httprc
	"github.com/lestrrat-go/httprc.TestQueue leak":      {CodeBug, "refreshLoop's deferred fetchCond.Signal is sent without the cond's lock: when the context is cancelled after fetchLoop checked ctx.Done under that lock but before it entered fetchCond.Wait, the Signal finds no waiter and fetchLoop waits forever (a lost wakeup; no timer involved)"},
	"github.com/lestrrat-go/httprc.TestCache leak":      {CodeBug, "the lost wakeup of TestQueue, in the cache's queue: fetchLoop checks ctx.Done under fetchCond's lock (queue.go:240), the test cancels, refreshLoop's deferred fetchCond.Signal (queue.go:286, without the lock) finds no waiter, and fetchLoop then waits in fetchCond.Wait (queue.go:244) forever; no timer fires early"},
	"github.com/lestrrat-go/httprc.TestCache steplimit": {HeddleFault, "a fetch worker waits in client.Do for the test's httptest server (a goroutine detached in I/O), and the refresh loop's 1 s ticker is the only other choice: heddle fires it at once, again and again, and the virtual clock reaches its 10 m bound in 0.3 s of real time, before the response comes; natively the request takes milliseconds (the replay diverges: the worker comes back at another step); see findings.md"},
	"github.com/lestrrat-go/httprc.TestCache fail":      {Timing, "sleeps 3 s and expects the cache's refresh (1 s interval, 1 s window, a real HTTP fetch) to have reported an error by then: natively 2 of 30 runs failed at httprc_test.go:109 (go test -count=10 -cpu 1,2,4)"},

	// github.com/lestrrat-go/backoff/v2
	"github.com/lestrrat-go/backoff/v2.TestExponential fail": {CodeBug, "ExponentialInterval.Next stores the jittered interval as current (exponential.go:76) and multiplies it next time, so jitter compounds: after two low draws the interval falls below the documented base×(1−factor) the test checks (727 ms < 735 ms); natively it failed in 1 of 1 `go test ./...` run (732 ms), the jitter's source seeded with the wall clock"},

	// github.com/Code-Hex/go-generics-cache: cache.New uses
	// context.Background, whose janitor goroutine ticks until that context
	// is cancelled, which it never is.
	"github.com/Code-Hex/go-generics-cache.TestMultiThreadIncr leak": {TestBug, "the cache is made with New (context.Background): its janitor goroutine ticks every minute forever and nothing stops it when the test returns (NewContext with a cancelled context would)"},
	"github.com/Code-Hex/go-generics-cache.TestMultiThreadDecr leak": {TestBug, "the cache is made with New (context.Background): its janitor goroutine ticks every minute forever and nothing stops it when the test returns (NewContext with a cancelled context would)"},
	"github.com/Code-Hex/go-generics-cache.TestCallJanitor leak":     {TestBug, "the cache is made with New (context.Background): its janitor goroutine ticks every 100 ms forever and nothing stops it when the test returns (NewContext with a cancelled context would)"},
	"github.com/Code-Hex/go-generics-cache.TestMultiThread leak":     {TestBug, "each subtest makes a cache with New (context.Background): their janitor goroutines tick forever and nothing stops them when the test returns"},
	"github.com/Code-Hex/go-generics-cache.TestDeleteExpired leak":   {TestBug, "each subtest makes a cache with New (context.Background): their janitor goroutines tick every minute forever and nothing stops them when the test returns"},

	// github.com/hashicorp/go-metrics
	"github.com/hashicorp/go-metrics.TestDisplayMetrics_RaceSetGauge leak":            {TestBug, "the writer goroutine loops forever (Sleep 150 ms, SetGauge) with nothing to stop it: it runs on after the test returns"},
	"github.com/hashicorp/go-metrics.TestDisplayMetrics_RaceAddSample leak":           {TestBug, "the writer goroutine loops forever (Sleep, AddSample) with nothing to stop it: it runs on after the test returns"},
	"github.com/hashicorp/go-metrics.TestDisplayMetrics_RaceIncrCounter leak":         {TestBug, "the writer goroutine loops forever (Sleep, IncrCounter) with nothing to stop it: it runs on after the test returns"},
	"github.com/hashicorp/go-metrics.TestDisplayMetrics_RaceMetricsSetGauge leak":     {TestBug, "the writer goroutine loops forever (Sleep, SetGauge) with nothing to stop it: it runs on after the test returns"},
	"github.com/hashicorp/go-metrics.TestMetrics_Filter_Blacklist leak":               {CodeBug, "New starts collectStats (EnableRuntimeMetrics is on in DefaultConfig), a loop of Sleep and EmitRuntimeStats with no way out: Metrics.Shutdown stops only the sink, so every Metrics leaks that goroutine"},
	"github.com/hashicorp/go-metrics.TestMetrics_Filter_Whitelist leak":               {CodeBug, "New's collectStats goroutine loops forever (Sleep, EmitRuntimeStats); nothing can stop it, Metrics.Shutdown stops only the sink"},
	"github.com/hashicorp/go-metrics.TestMetrics_Filter_Labels_Whitelist leak":        {CodeBug, "New's collectStats goroutine loops forever (Sleep, EmitRuntimeStats); nothing can stop it, Metrics.Shutdown stops only the sink"},
	"github.com/hashicorp/go-metrics.TestMetrics_Filter_Labels_ModifyArgs leak":       {CodeBug, "New's collectStats goroutine loops forever (Sleep, EmitRuntimeStats); nothing can stop it, Metrics.Shutdown stops only the sink"},
	"github.com/hashicorp/go-metrics.TestNewStatsdSinkFromURL leak":                   {TestBug, "each subtest makes a StatsdSink, whose flushMetrics goroutine runs until Shutdown, and never shuts it down"},
	"github.com/hashicorp/go-metrics.TestNewStatsiteSinkFromURL leak":                 {TestBug, "each subtest makes a StatsiteSink, whose flushMetrics goroutine runs until Shutdown, and never shuts it down"},
	"github.com/hashicorp/go-metrics.TestMetrics_EmitRuntimeStats fail":               {HeddleFault, "the test wants runtime.NumGoroutine() > 1, which natively always holds (the main goroutine waits in t.Run beside the test's); heddle's NumGoroutine counted only the run's goroutines, 1 (fixed since: it counts the main goroutine; the test passes)"},
	"github.com/hashicorp/go-metrics/circonus.TestNewCirconusSink leak":               {CodeBug, "circonus-gometrics (v2.3.1) New starts a goroutine ranging over a 10 s ticker's channel to Flush, which nothing stops (the ticker is never stopped, the range never ends)"},
	"github.com/hashicorp/go-metrics/circonus.TestSetGauge leak":                      {CodeBug, "circonus-gometrics New's flush goroutine ranges over a 10 s ticker forever: nothing stops it"},
	"github.com/hashicorp/go-metrics/circonus.TestSetPrecisionGauge leak":             {CodeBug, "circonus-gometrics New's flush goroutine ranges over a 10 s ticker forever: nothing stops it"},
	"github.com/hashicorp/go-metrics/circonus.TestIncrCounter leak":                   {CodeBug, "circonus-gometrics New's flush goroutine ranges over a 10 s ticker forever: nothing stops it"},
	"github.com/hashicorp/go-metrics/circonus.TestAddSample leak":                     {CodeBug, "circonus-gometrics New's flush goroutine ranges over a 10 s ticker forever: nothing stops it"},
	"github.com/hashicorp/go-metrics/prometheus.TestPrometheusSink_BackgroundGC leak": {CodeBug, "metrics.NewGlobal (DefaultConfig: EnableRuntimeMetrics) starts collectStats, a loop of Sleep and EmitRuntimeStats that nothing can stop (Metrics.Shutdown stops only the sink): still running a minute of virtual time after the test"},
	"github.com/hashicorp/go-metrics/datadog.TestFlattenKey leak":                     {TestBug, "mockNewDogStatsdSink makes a datadog-go statsd client that the test never closes: its sender, watch and telemetry goroutines run forever after the test"},
	"github.com/hashicorp/go-metrics.TestNewMetricSinkFromURL leak":                   {TestBug, "the statsd:// and statsite:// subtests make sinks whose flushMetrics goroutines run until Shutdown, which the test never calls (as in TestNewStatsdSinkFromURL)"},
	"github.com/hashicorp/go-metrics/datadog.TestParseKey leak":                       {TestBug, "each table entry makes a sink with mockNewDogStatsdSink, whose datadog-go statsd client the test never closes: its sender and telemetry goroutines run on after the test (as in TestFlattenKey)"},
	"github.com/hashicorp/go-metrics/datadog.TestTaggableMetrics leak":                {TestBug, "the sink made by mockNewDogStatsdSink is never closed: its statsd client's sender goroutines (sender.go:95) loop after the test returns (as in TestFlattenKey)"},
	// Ten modules heddle had not seen (2026-11-26, newmods): freecache,
	// haxmap, moby/locker, chanqueue, sizedwaitgroup, jrpc2 and
	// sourcegraph/jsonrpc2 had no report.
	//
	// github.com/moby/pubsub: sendTopic arms its timeout timer, then
	// selects between the subscriber's channel and the timer
	// (publisher.go:112-118); a goroutine that reaches its select after
	// the timeout finds both ready and Go picks either, so a message is
	// dropped though the subscriber's buffer has room, and the test then
	// waits forever for it. Natively with GODEBUG=asynctimerchan=0 and a
	// 1 ns timeout, 481 of 1,000 Publish calls to an empty buffer of 10
	// dropped the message; with the tests' 100 ms it takes a goroutine
	// 100 ms late, as on a loaded machine. A deadlock that needs the
	// code's own timer is a bug (docs/usage.md).
	"github.com/moby/pubsub.TestSendToOneSub deadlock":       {CodeBug, "sendTopic selects between a send to the subscriber's buffered channel and its own 100 ms timeout timer: run after the timeout (the goroutine 100 ms late), both are ready and select may take the timer, dropping the message though the buffer has room; the test then receives forever (natively: 481 of 1,000 messages dropped with a 1 ns timeout)"},
	"github.com/moby/pubsub.TestSendToMultipleSubs deadlock": {CodeBug, "as TestSendToOneSub: one of the three sendTopic goroutines runs after its 100 ms timeout and its select takes the timer, dropping the message to a subscriber whose buffer has room; the test's receive from that subscriber blocks forever (its replay diverged until the fix to replays of portfolio runs after an idb run: the map of subscribers ranged in another order)"},
	"github.com/moby/pubsub.TestEvictOneSub deadlock":        {CodeBug, "as TestSendToOneSub: the goroutine sending to the remaining subscriber runs after its 100 ms timeout and drops the message though the buffer has room; the test's receive blocks forever"},
	// github.com/afex/hystrix-go: every circuit starts two goroutines,
	// metricExchange.Monitor and poolMetrics.Monitor, each ranging over a
	// channel nothing closes (metrics.go:35,53; pool_metrics.go:30,44).
	// Flush, which every test defers, deletes the circuits and resets
	// their metrics (circuit.go:56-65) but never stops those goroutines:
	// two leak per circuit a test makes, on every schedule.
	"github.com/afex/hystrix-go/hystrix.TestEventStream leak":              {CodeBug, "as TestGetCircuit: the circuits the stream's commands make start metricExchange.Monitor and poolMetrics.Monitor, which nothing stops (the report's g0.2 and g0.3, blocked at metrics.go:53 and pool_metrics.go:44); its replay diverged, as the test's requests to its httptest server are real I/O, detached, whose ends the replay does not order as the run did"},
	"github.com/afex/hystrix-go/hystrix.TestGetCircuit leak":               {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestMultithreadedGetCircuit leak":  {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestReportEventOpenThenClose leak": {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestReportEventMultiThreaded leak": {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestSuccess leak":                  {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestFallback leak":                 {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestTimeout leak":                  {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestTimeoutEmptyFallback leak":     {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestMaxConcurrent leak":            {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestForceOpenCircuit leak":         {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestNilFallbackRunError leak":      {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestFailedFallback leak":           {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestCloseCircuitAfterSuccess leak": {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestFailAfterTimeout leak":         {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestSlowFallbackOpenCircuit leak":  {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestFallbackAfterRejected leak":    {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestReturnTicket_QuickCheck leak":  {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestReturnTicket leak":             {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestContextHandling leak":          {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestDoC leak":                      {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestErrorPercent leak":             {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestReturn leak":                   {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/hystrix.TestActiveCount leak":              {CodeBug, "the circuit the test makes starts metricExchange.Monitor and poolMetrics.Monitor, ranging over Updates channels nothing closes; Flush (circuit.go:56) deletes the circuit without stopping them, so they are left blocked after the test on every schedule"},
	"github.com/afex/hystrix-go/plugins.TestSampleRate leak":               {TestBug, "InitializeStatsdCollector makes a buffered statsd client whose sender goroutine runs until Close (statsd_collector.go:64: 'Users should ensure to call Close() on the client'), and the test never closes its two clients"},
	// github.com/rs/zerolog
	"github.com/rs/zerolog.TestSamplers fail":                           {TestBug, "the RandomSampler subtest counts how many of 100 Sample calls pass with probability 1/5 and wants 10 to 30: a binomial draw outside that range fails about 0.6% of runs natively (19 of 3,000 with -run 'TestSamplers/^RandomSampler$' -count=3000); heddle draws rand's numbers per run and met such a draw (31)"},
	"github.com/rs/zerolog/diode.TestNewWriter fail":                    {CodeBug, "Waiter.Next (diode/internal/diodes/waiter.go:64-82) tries TryNext and, when it finds nothing, returns nil if the context is done: the poller's TryNext ran between the writer's AddUint64 of the write index and its CAS of the bucket (many_to_one.go:43,59), found the slot empty, then saw Close's cancel and returned nil without trying again, so the message Set before Close is never written (not seen natively in 90,000 runs: the window is a few instructions)"},
	"github.com/rs/zerolog/diode.TestFatal fail":                        {TestBug, "the test calls cmd.Wait while its goroutine still copies the child's StderrPipe: Wait closes the pipe once the child exits, so a copy that has not read yet fails (os/exec: \"it is incorrect to call Wait before all reads from the pipe have completed\"); the report's first line is that copy's error, read |0: file already closed, at the run where the copying goroutine ran after Wait (since exec's Wait is a step, rt/exec.go)"},
	"github.com/rs/zerolog/diode.TestFatalWithFilteredLevelWriter fail": {TestBug, "as TestFatal, on the child's StdoutPipe: cmd.Wait closes the pipe before the copying goroutine has read the fatal line, and the copy's error is ignored, so the test reads an empty output"},
	"github.com/rs/zerolog.TestNewTestWriter fail":                      {HeddleFault, "the test checks NewTestWriter(t).T == t; heddle passes t to a parameter of an interface type of the package's own (TestingLog) as rt.TBArg(t), a wrapper that routes its failures to the run's T, so the stored value is not t; fixed: a comparison of t with a value of an interface type is rt.TBEqual, which sees through the wrapper"},
	"github.com/rs/zerolog/internal/cbor.TestAppendTimeNow fail":        {HeddleFault, "heddle's virtual clock started on a whole second, so time.Now() had no nanoseconds and AppendTime encoded it as an integer, not the float the test expects (natively a whole second is one read in a billion); fixed: heddle test's epoch keeps the wall clock's nanoseconds"},
	"github.com/rs/zerolog/pkgerrors.TestLogStack fail":                 {HeddleFault, "the stack the test matches names the test's function, TestLogStack; under heddle the test's body is the rewriter's closure TestLogStack.func1, and pkg/errors reads the name with runtime.FuncForPC, which heddle did not rename as it does runtime.Stack's frames; fixed: (*runtime.Func).Name and (*runtime.Frames).Next are rt.FuncName/rt.FramesNext, renamed as the dump"},
	"github.com/rs/zerolog/pkgerrors.TestLogStackFields fail":           {HeddleFault, "as TestLogStack: runtime.FuncForPC names the test's body TestLogStackFields.func1, not TestLogStackFields (fixed)"},
	"github.com/rs/zerolog/pkgerrors.TestLogStackFromContext fail":      {HeddleFault, "as TestLogStack: runtime.FuncForPC names the test's body TestLogStackFromContext.func1 (fixed)"},
	"github.com/rs/zerolog/pkgerrors.TestLogStackFromContextWith fail":  {HeddleFault, "as TestLogStack: runtime.FuncForPC names the test's body TestLogStackFromContextWith.func1 (fixed)"},
	// github.com/hashicorp/yamux: three tests over real TCP connections.
	// Traced on the realio branch (2026-11-26): their replays left the
	// schedule because a receive loop back from its read was held until
	// the step it was picked at, not the one it came back at (fixed:
	// engine nativeBack); the "session shutdown" and "keepalive timeout"
	// failures come from late wakes and early firings (timing verdicts,
	// which now replay). What may remain: a failure that depends on what
	// a native read returned or whether the kernel had reset the
	// connection, which a replay does not control.
	"github.com/hashicorp/yamux.TestCloseBeforeAck fail":           {HeddleFault, "a session over a real TCP connection shut down under heddle: its keepalive ping timed out after late wakes while the peer's answer was in real I/O; a replay that diverges does so on what a native read returned, which heddle does not replay"},
	"github.com/hashicorp/yamux.TestHalfClose fail":                {HeddleFault, "as TestCloseBeforeAck: the session shut down (session shutdown, keepalive timeout) after late wakes while data was in real I/O; a replay that diverges does so on what a native read returned"},
	"github.com/hashicorp/yamux.TestSendData_Large fail":           {HeddleFault, "as TestCloseBeforeAck: the client's keepalive ping timed out (testConf's 250 ms ConnectionWriteTimeout; the timer fired while goroutines could run) while the server's answer was in real TLS I/O, and the session's Close closed the stream the writer was writing 250 MB to: stream closed. It replays, but natively the answer comes within the timeout"},
	"github.com/hashicorp/yamux.TestHalfCloseSessionShutdown fail": {HeddleFault, "a write on the real TCP connection failed with connection reset by peer or broken pipe: whether the client's socket still held unread data when it closed depends on how much its native reads took, which the schedule does not control, and the replay diverges there"},
}

// Classify looks up the judgement on a report.
func Classify(pkg, test, kind string) Class {
	return classes[pkg+"."+test+" "+kind]
}
