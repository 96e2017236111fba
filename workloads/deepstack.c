/* deepstack.c - allocation at the leaves of a deep recursion (sample cost against stack depth).
 *
 * What it models: programs that allocate far down a deep call stack -
 * recursive-descent parsers, tree visitors, deeply layered frameworks - so
 * that every allocation or time sample has a long stack to record.  Running
 * it at several --depth values with the same --size measures how the cost of
 * a sample grows with the number of frames.  It is not one of the paper's
 * benchmarks; it isolates the stack-capture part of their per-sample cost.
 *
 * Each descent recurses to --depth D through descend(), one frame per level,
 * each level allocating a small Level record linked to its parent's (so
 * every frame on the way holds a live reference the collector must find).
 * At the bottom, leaf_batch() allocates a batch of Leaf objects into a
 * list, then walks the list and the whole Level chain back to the top.
 * The batch is max(1024, 4*D) leaves, so leaves are at least 80% of the
 * objects whatever the depth.
 *
 * Scaling: --size N allocates N*1024 leaves in total (linear); the number of
 * descents is N*1024 / batch, rounded up (the last batch is shorter).
 *
 * Checksum: every descent's leaf sum and chain sum, and every level's
 * return value on the way up.  All are functions of the descent number,
 * level and leaf index, which the reference evaluates directly.
 */
#include "wl_common.h"

typedef struct Level {
    struct Level *parent; /* the caller's level, NULL at the top */
    int64_t depth;        /* 0 at the top */
    int64_t token;        /* depth * 7 + descent */
} Level;

typedef struct Leaf {
    struct Leaf *next; /* the previously allocated leaf of this batch */
    Level *level;      /* the bottom level */
    int64_t value;     /* descent * 1315423911 + index */
} Leaf;

static uint32_t t_level, t_leaf;
static int64_t opt_depth = 64;

/* Allocates count leaves at the bottom of the stack and returns what they
 * and the level chain sum to. */
static uint64_t leaf_batch(Level *bottom, int64_t descent, int64_t count) {
    Leaf *list = NULL, *leaf = NULL;
    SGC_FRAME(&bottom, &list, &leaf);
    for (int64_t j = 0; j < count; j++) {
        leaf = SGC_NEW(t_leaf, Leaf);
        leaf->next = list;
        leaf->level = bottom;
        leaf->value = descent * 1315423911 + j;
        sgc_write_barrier(leaf);
        list = leaf;
    }
    uint64_t leaves = 0;
    for (leaf = list; leaf; leaf = leaf->next)
        leaves = leaves * 31 + (uint64_t)leaf->value + (uint64_t)leaf->level->depth;
    uint64_t chain = 0;
    for (Level *l = bottom; l; l = l->parent)
        chain = chain * 17 + (uint64_t)l->token;
    leaf = NULL;
    list = NULL;
    return leaves ^ (chain << 1);
}

/* One level of the recursion: a Level record, the next level down, and on
 * the way back a value depending on everything below. */
static uint64_t descend(Level *parent, int64_t depth, int64_t max_depth, int64_t descent, int64_t count) {
    Level *level = NULL;
    SGC_FRAME(&parent, &level);
    level = SGC_NEW(t_level, Level);
    level->parent = parent;
    level->depth = depth;
    level->token = depth * 7 + descent;
    sgc_write_barrier(level);
    uint64_t below = depth + 1 < max_depth ? descend(level, depth + 1, max_depth, descent, count)
                                           : leaf_batch(level, descent, count);
    /* level may have moved during the call; its fields must be intact. */
    return below * 3 + (uint64_t)level->token;
}

static int64_t batch_size(int64_t depth) { return depth * 4 > 1024 ? depth * 4 : 1024; }

static void deepstack(int64_t leaves, int64_t depth, wl_checksum *sum) {
    SGC_FRAME();
    int64_t batch = batch_size(depth);
    for (int64_t descent = 0, done = 0; done < leaves; descent++) {
        int64_t count = leaves - done < batch ? leaves - done : batch;
        wl_mix(sum, descend(NULL, 0, depth, descent, count));
        done += count;
    }
}

static uint64_t expected(const wl_run *run) {
    int64_t depth = opt_depth, leaves = run->size * 1024, batch = batch_size(depth);
    wl_checksum sum = WL_CHECKSUM_INIT;
    for (int64_t descent = 0, done = 0; done < leaves; descent++) {
        int64_t count = leaves - done < batch ? leaves - done : batch;
        /* The leaf list is walked newest first. */
        uint64_t leaf_sum = 0;
        for (int64_t j = count - 1; j >= 0; j--)
            leaf_sum = leaf_sum * 31 + (uint64_t)(descent * 1315423911 + j) + (uint64_t)(depth - 1);
        uint64_t chain = 0;
        for (int64_t l = depth - 1; l >= 0; l--)
            chain = chain * 17 + (uint64_t)(l * 7 + descent);
        uint64_t v = leaf_sum ^ (chain << 1);
        for (int64_t l = depth - 1; l >= 0; l--)
            v = v * 3 + (uint64_t)(l * 7 + descent);
        wl_mix(&sum, v);
        done += count;
    }
    return wl_checksum_value(&sum);
}

int main(int argc, char **argv) {
    static const wl_option options[] = {
        {"--depth", WL_OPT_INT, &opt_depth, 1, 10000, "frames between the top and the allocating leaf (default 64)"},
        {0},
    };
    static const wl_spec spec = {
        .name = "deepstack",
        .summary = "allocation at the leaves of a recursion of configurable depth",
        .default_size = 32768,
        .min_size = 1,
        .max_size = (int64_t)1 << 32,
        .size_help = "thousands of leaf objects allocated",
        .options = options,
    };
    wl_run run = wl_start(&spec, argc, argv);
    t_level = wl_type("DeepStack.Level", sizeof(Level), WL_PTR(Level, parent), SGC_VAR_NONE);
    t_leaf = wl_type("DeepStack.Leaf", sizeof(Leaf), WL_PTR(Leaf, next) | WL_PTR(Leaf, level), SGC_VAR_NONE);
    wl_checksum sum = WL_CHECKSUM_INIT;
    deepstack(run.size * 1024, opt_depth, &sum);
    return wl_finish(&run, &sum, expected);
}
