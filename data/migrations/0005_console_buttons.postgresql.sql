-- The console front-end's memory, shared by every console process on the database: the
-- buttons of the replies it showed last, so that `/press` works from a new process.
CREATE TABLE console_buttons (
    channel     TEXT    NOT NULL,             -- the console channel's name
    owner       TEXT    NOT NULL,             -- '' for everyone, else the one user shown
    shown       BIGINT  NOT NULL,             -- order of showing: the greatest is newest
    buttons     TEXT    NOT NULL,             -- JSON [[payload, label], ...]
    PRIMARY KEY (channel, owner)
);

-- Console channel names by the id derived from them, to write `<#id>` as `#name`.
CREATE TABLE console_channels (
    channel_id  BIGINT  PRIMARY KEY,
    name        TEXT    NOT NULL
);
