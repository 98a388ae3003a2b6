package dev.cosid.mybatisplus.app;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;

/** MyBatis-Plus's mapper of {@link Parcel}. */
public interface ParcelMapper extends BaseMapper<Parcel> {
}
